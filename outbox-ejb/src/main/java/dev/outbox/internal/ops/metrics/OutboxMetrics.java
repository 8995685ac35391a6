package dev.outbox.internal.ops.metrics;

import dev.outbox.Inbox;
import dev.outbox.internal.event.UuidV7;
import dev.outbox.internal.inbox.InboxReceived;
import dev.outbox.internal.inbox.watch.ConsumerWatch;
import dev.outbox.internal.persistence.Backlog;
import dev.outbox.internal.persistence.SchemaInstaller;
import dev.outbox.internal.publish.BatchSent;
import dev.outbox.internal.publish.PublisherMessages;
import dev.outbox.internal.transport.TopicRisks;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.event.Startup;
import jakarta.enterprise.inject.Instance;
import jakarta.inject.Inject;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.DoubleSupplier;
import java.util.function.Supplier;
import java.util.logging.Level;
import java.util.logging.Logger;

import static dev.outbox.internal.ops.metrics.OutboxMeter.ALL_TYPES;

/**
 * The outbox's metrics (R6.1, R6.2), recorded once for every metrics API the server has ({@link Meters}), each
 * tagged by event type so one failing type cannot hide behind the others:
 * <ul>
 *     <li>{@code outbox_oldest_pending_age_seconds}, {@code outbox_pending}, {@code outbox_parked} and
 *     {@code outbox_failing} (pending rows whose last attempt failed, by {@code error_class}): gauges over the
 *     {@link BacklogCache};</li>
 *     <li>{@code outbox_publish_total} by {@code outcome} (delivered, transient, unknown, permanent) and
 *     {@code destination} (the route's transports): what the broker said to this instance's sends;</li>
 *     <li>{@code outbox_inbox_received_total} by {@code consumer} and {@code receipt} (first, duplicate, waiting,
 *     conflict, skipped): the duplicate hit rate is duplicate over all; {@code outbox_inbox_latency_seconds} by consumer: from
 *     the event's creation (its UUIDv7 time) to its first processing, the publish-to-consume latency;</li>
 *     <li>{@code outbox_inbox_waiting} by {@code consumer}: what waits for each watched consumer at its source (a
 *     Kafka group's lag, a queue's depth; NaN while the source cannot say), see {@link ConsumerWatch};</li>
 *     <li>{@code outbox_inbox_gap_age_seconds}, {@code outbox_inbox_resequencing} and {@code outbox_inbox_conflicts}
 *     by {@code consumer} (R5.7, R7.7): how long the oldest event held for its earlier versions has waited, how many
 *     wait, and the forks parked, for consumers whose inbox shares this database;</li>
 *     <li>{@code outbox_topic_at_risk} by {@code topic} and {@code risk} (under_replicated, compacted,
 *     short_retention): 1 while the publisher's check of a topic finds it can lose records (R4.7, R5.7).</li>
 * </ul>
 * A send rate alone shows a pretty zero when the producer stalls (R6.1): alert on the oldest age instead.
 *
 * <p>No field or signature names a metrics API's type (the adapters do), because Open Liberty warns at every start
 * about a bean whose fields it cannot read (CWNEN0047W), and each adapter is loaded only where its API exists: the
 * MicroProfile Metrics one is a bean (Liberty hands its registry out by injection only), the Micrometer one is
 * looked up here when Micrometer is on the class path (WildFly).
 */
@ApplicationScoped
public class OutboxMetrics {

    private static final Logger LOG = Logger.getLogger(OutboxMetrics.class.getName());
    private static final boolean MICROMETER = present("io.micrometer.core.instrument.MeterRegistry");

    @Inject
    BacklogCache cache;

    @Inject
    SchemaInstaller schema;

    @Inject
    ConsumerWatch consumers;

    @Inject
    TopicRisks topics;

    /** The MicroProfile Metrics adapter where the server has that API (a bean there, none elsewhere). */
    @Inject
    Instance<Meters> beans;

    private final List<Meters> meters = new CopyOnWriteArrayList<>();
    private final NewSeries series = new NewSeries();
    private final java.util.Set<String> watchedConsumers = java.util.concurrent.ConcurrentHashMap.newKeySet();
    private final java.util.Set<String> gaugedTopics = java.util.concurrent.ConcurrentHashMap.newKeySet();
    /** The gauges' suppliers, held here: Micrometer keeps only weak references to them. */
    private final List<DoubleSupplier> gauges = new CopyOnWriteArrayList<>();

    private final java.util.concurrent.atomic.AtomicBoolean started = new java.util.concurrent.atomic.AtomicBoolean();

    void start(@Observes Startup startup) {
        if (!started.compareAndSet(false, true)) {
            return; // a server may fire Startup once per module: the meters are found and registered once
        }
        schema.ensureInstalled(); // the first backlog read below needs the tables
        List<Meters> found = new ArrayList<>();
        beans.forEach(found::add);
        if (MICROMETER) {
            add(found, MicrometerMeters::find, "Micrometer");
        }
        meters.addAll(found);
        // The all-types series always exists; a scrape refreshes the backlog and adds the types that appeared, which
        // show from the next scrape on (the exporter has written the earlier families by then).
        gauge(OutboxMeter.OLDEST_PENDING_AGE, ALL_TYPES, () -> backlog().oldestPendingAge().toMillis() / 1000.0);
        gauge(OutboxMeter.PENDING, ALL_TYPES, () -> backlog().pendingTotal());
        gauge(OutboxMeter.PARKED, ALL_TYPES, () -> backlog().parkedTotal());
        backlog(); // the types of a backlog that exists at start are in the first scrape already
        consumers.onWatched(consumer -> {
            if (watchedConsumers.add(consumer)) {
                gaugeConsumer(consumer);
            }
        });
        topics.onFound(this::gaugeTopic);
    }

    /** R4.7, R5.7: 1 while the topic's last check found the risk, 0 once a later one no longer does. */
    private void gaugeTopic(TopicRisks.Found found) {
        if (!gaugedTopics.add(found.topic() + "\u0000" + found.risk())) {
            return;
        }
        DoubleSupplier value = () -> topics.holds(found.topic(), found.risk()) ? 1 : 0;
        gauges.add(value);
        meters.forEach(m -> m.gauge(OutboxMeter.TOPIC_AT_RISK,
                tags("topic", found.topic(), "risk", found.risk().name().toLowerCase(Locale.ROOT)), value));
    }

    /** A batch's send outcomes before its confirm, counted once per counter rather than once per event. */
    void sent(@Observes BatchSent batch) {
        try {
            batch.counts().forEach((sent, count) -> meters.forEach(m -> m.count(OutboxMeter.PUBLISHED,
                    tags("event_type", sent.eventType(), "destination", sent.destination(), "outcome", sent.outcome()),
                    count)));
        } catch (RuntimeException e) {
            LOG.log(Level.FINE, "outbox metrics: send outcomes not counted", e);
        }
    }

    /** Called in the consumer's transaction: it must never fail it. */
    void received(@Observes InboxReceived received) {
        try {
            Map<String, String> receipt = tags("consumer", received.consumer(),
                    "receipt", received.receipt().name().toLowerCase(Locale.ROOT));
            meters.forEach(m -> m.count(OutboxMeter.RECEIVED, receipt, 1));
            if (received.receipt() == Inbox.Receipt.FIRST) {
                long created = UuidV7.millisOf(received.eventId().value());
                Duration latency = Duration.ofMillis(Math.max(0, System.currentTimeMillis() - created));
                meters.forEach(m -> m.time(OutboxMeter.LATENCY, tags("consumer", received.consumer()), latency));
            }
        } catch (RuntimeException e) {
            LOG.log(Level.FINE, "outbox metrics: inbox receipt not counted", e);
        }
    }

    private Backlog backlog() {
        Backlog backlog = cache.backlog();
        series.of(backlog, this::gaugeType, this::gaugeFailing, this::gaugeGaps);
        return backlog;
    }

    private void gaugeConsumer(String consumer) {
        DoubleSupplier value = () -> consumers.state(consumer)
                .map(s -> s.waiting().isPresent() ? (double) s.waiting().getAsLong() : Double.NaN).orElse(Double.NaN);
        gauges.add(value);
        meters.forEach(m -> m.gauge(OutboxMeter.WAITING, tags("consumer", consumer), value));
    }

    /** R5.7, R7.7: a consumer's gap and its forks, from the first backlog that shows either. */
    private void gaugeGaps(String consumer) {
        Map<String, String> tags = tags("consumer", consumer);
        DoubleSupplier age = () -> backlog().oldestWaitingAge(consumer).toMillis() / 1000.0;
        DoubleSupplier waiting = () -> backlog().gaps().waiting().getOrDefault(consumer, 0L);
        DoubleSupplier conflicts = () -> backlog().gaps().conflicts().getOrDefault(consumer, 0L);
        gauges.addAll(List.of(age, waiting, conflicts));
        meters.forEach(m -> {
            m.gauge(OutboxMeter.GAP_AGE, tags, age);
            m.gauge(OutboxMeter.RESEQUENCING, tags, waiting);
            m.gauge(OutboxMeter.CONFLICTS, tags, conflicts);
        });
    }

    private void gaugeType(String type) {
        gauge(OutboxMeter.OLDEST_PENDING_AGE, type, () -> backlog().oldestPendingAge(type).toMillis() / 1000.0);
        gauge(OutboxMeter.PENDING, type, () -> backlog().pending().getOrDefault(type, 0L));
        gauge(OutboxMeter.PARKED, type, () -> backlog().parked().getOrDefault(type, 0L));
    }

    private void gaugeFailing(String type, String errorClass) {
        DoubleSupplier value = () -> backlog().failingByClass().getOrDefault(type, Map.of()).getOrDefault(errorClass, 0L);
        gauges.add(value);
        meters.forEach(m -> m.gauge(OutboxMeter.FAILING, tags("event_type", type, "error_class", errorClass), value));
    }

    private void gauge(OutboxMeter meter, String eventType, DoubleSupplier value) {
        gauges.add(value);
        meters.forEach(m -> m.gauge(meter, tags("event_type", eventType), value));
    }

    /** Tags from name, value pairs, in order; an empty value becomes "none", which Prometheus keeps. */
    private static Map<String, String> tags(String... namesAndValues) {
        Map<String, String> tags = new java.util.LinkedHashMap<>();
        for (int i = 0; i < namesAndValues.length; i += 2) {
            tags.put(namesAndValues[i], OutboxMeter.tagValue(namesAndValues[i + 1]));
        }
        return tags;
    }

    private static void add(List<Meters> found, Supplier<Meters> find, String api) {
        try {
            Meters meters = find.get();
            if (meters == null) {
                PublisherMessages.METRICS_NO_REGISTRY.log(LOG,
                        () -> "outbox metrics: " + api + " is on the classpath but the server offers no registry bean");
            } else {
                found.add(meters);
            }
        } catch (RuntimeException | LinkageError e) {
            PublisherMessages.METRICS_API_UNUSABLE.log(LOG, e, () -> "outbox metrics: " + api + " is not usable here");
        }
    }

    private static boolean present(String className) {
        try {
            Class.forName(className, false, OutboxMetrics.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException | LinkageError absent) {
            return false;
        }
    }
}
