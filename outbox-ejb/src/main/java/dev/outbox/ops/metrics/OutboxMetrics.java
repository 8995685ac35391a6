package dev.outbox.ops.metrics;

import dev.outbox.config.SettingReader;
import dev.outbox.event.UuidV7;
import dev.outbox.inbox.Inbox;
import dev.outbox.inbox.InboxReceived;
import dev.outbox.schema.OutboxDataSource;
import dev.outbox.publish.BatchSent;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.event.Startup;
import jakarta.inject.Inject;
import org.eclipse.microprofile.config.Config;
import org.eclipse.microprofile.config.ConfigProvider;
import org.eclipse.microprofile.metrics.Metadata;
import org.eclipse.microprofile.metrics.MetricRegistry;
import org.eclipse.microprofile.metrics.MetricUnits;
import org.eclipse.microprofile.metrics.Tag;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The outbox's metrics (R6.1, R6.2) on MicroProfile Metrics ({@code /metrics}, scope {@code application}), each
 * tagged by event type, so one failing type cannot hide behind the others:
 * <ul>
 *     <li>{@code outbox_oldest_pending_age_seconds}, {@code outbox_pending}, {@code outbox_parked} and
 *     {@code outbox_failing} (pending rows whose last attempt failed, by {@code error_class}): gauges over a
 *     {@link Backlog} read at most once per {@code outbox.metrics.refresh-ms}, however often it is scraped;</li>
 *     <li>{@code outbox_publish_total} by {@code outcome} (delivered, transient, unknown, permanent) and
 *     {@code destination} (the route's transports): what the broker said to this instance's sends;</li>
 *     <li>{@code outbox_inbox_received_total} by {@code consumer} and {@code receipt} (first, duplicate, stale,
 *     held): the duplicate hit rate is duplicate over all; {@code outbox_inbox_latency_seconds} by consumer: from
 *     the event's creation (its UUIDv7 time) to its first processing, the publish-to-consume latency.</li>
 * </ul>
 * A send rate alone shows a pretty zero when the producer stalls (R6.1): alert on the oldest age instead.
 */
@ApplicationScoped
public class OutboxMetrics {

    private static final Logger LOG = Logger.getLogger(OutboxMetrics.class.getName());

    private static final Metadata OLDEST = Metadata.builder().withName("outbox.oldest.pending.age")
            .withDescription("Age of the oldest pending (undelivered) event").withUnit(MetricUnits.SECONDS).build();
    private static final Metadata PENDING = Metadata.builder().withName("outbox.pending")
            .withDescription("Events recorded and not yet delivered").build();
    private static final Metadata PARKED = Metadata.builder().withName("outbox.parked")
            .withDescription("Events parked after a deterministic failure, waiting for repair").build();
    private static final Metadata FAILING = Metadata.builder().withName("outbox.failing")
            .withDescription("Pending events whose last attempt failed, by error class").build();
    private static final Metadata PUBLISHED = Metadata.builder().withName("outbox.publish")
            .withDescription("Send outcomes of this instance's publisher").build();
    private static final Metadata RECEIVED = Metadata.builder().withName("outbox.inbox.received")
            .withDescription("Deliveries the inbox decided on, by receipt").build();
    private static final Metadata LATENCY = Metadata.builder().withName("outbox.inbox.latency")
            .withDescription("From an event's creation to its first processing by a consumer")
            .withUnit(MetricUnits.SECONDS).build();
    private static final String ALL = "*";

    @Inject
    MetricRegistry registry;

    @Inject
    OutboxDataSource database;

    private final Set<String> gauged = ConcurrentHashMap.newKeySet();
    private volatile Backlog backlog = Backlog.EMPTY;
    private volatile Duration refresh = Duration.ofSeconds(5);

    void start(@Observes Startup startup) {
        Config config = ConfigProvider.getConfig();
        refresh = Duration.ofMillis(new SettingReader(name -> config.getOptionalValue(name, String.class))
                .integer("outbox.metrics.refresh-ms", 5000, 0, 3_600_000));
        // The all-types series always exists; a scrape refreshes the backlog and adds the types that appeared, which
        // show from the next scrape on (the exporter has written the earlier families by then).
        registry.gauge(OLDEST, this, m -> m.backlog().oldestPendingAge().toMillis() / 1000.0, tag("event_type", ALL));
        registry.gauge(PENDING, this, m -> m.backlog().pending().values().stream().mapToLong(Long::longValue).sum(),
                tag("event_type", ALL));
        registry.gauge(PARKED, this, m -> m.backlog().parked().values().stream().mapToLong(Long::longValue).sum(),
                tag("event_type", ALL));
        backlog(); // the types of a backlog that exists at start are in the first scrape already
    }

    /** The backlog, read again when older than the refresh interval. */
    public Backlog backlog() {
        Backlog known = backlog;
        OffsetDateTime now = OffsetDateTime.now(ZoneOffset.UTC);
        return known.readAt().plus(refresh).isAfter(now) ? known : read(now);
    }

    private synchronized Backlog read(OffsetDateTime now) {
        if (backlog.readAt().plus(refresh).isAfter(now)) {
            return backlog; // another scrape thread read it meanwhile
        }
        try (Connection connection = database.connect()) {
            Backlog fresh = Backlog.read(connection, now);
            backlog = fresh;
            gaugeNewTypes(fresh);
            return fresh;
        } catch (SQLException | RuntimeException e) {
            LOG.log(Level.WARNING, "outbox metrics: cannot read the backlog; the gauges keep their last values", e);
            return backlog;
        }
    }

    private void gaugeNewTypes(Backlog fresh) {
        for (String type : fresh.eventTypes()) {
            if (gauged.add(type)) {
                Tag eventType = tag("event_type", type);
                registry.gauge(OLDEST, this, m -> m.backlog().oldestPendingAge(type).toMillis() / 1000.0, eventType);
                registry.gauge(PENDING, this, m -> m.backlog().pending().getOrDefault(type, 0L), eventType);
                registry.gauge(PARKED, this, m -> m.backlog().parked().getOrDefault(type, 0L), eventType);
            }
        }
        fresh.failingByClass().forEach((type, byClass) -> byClass.keySet().forEach(errorClass -> {
            if (gauged.add(type + "\u0000" + errorClass)) {
                registry.gauge(FAILING, this, m -> m.backlog().failingByClass().getOrDefault(type, Map.of())
                        .getOrDefault(errorClass, 0L), tag("event_type", type), tag("error_class", errorClass));
            }
        }));
    }

    /** A batch's send outcomes before its confirm, counted once per counter rather than once per event. */
    void sent(@Observes BatchSent batch) {
        try {
            batch.counts().forEach((sent, count) -> registry.counter(PUBLISHED, tag("event_type", sent.eventType()),
                    tag("destination", sent.destination()), tag("outcome", sent.outcome())).inc(count));
        } catch (RuntimeException e) {
            LOG.log(Level.FINE, "outbox metrics: send outcomes not counted", e);
        }
    }

    /** Called in the consumer's transaction: it must never fail it. */
    void received(@Observes InboxReceived received) {
        try {
            registry.counter(RECEIVED, tag("consumer", received.consumer()),
                    tag("receipt", received.receipt().name().toLowerCase(Locale.ROOT))).inc();
            if (received.receipt() == Inbox.Receipt.FIRST) {
                long created = UuidV7.millisOf(received.eventId().value());
                registry.timer(LATENCY, tag("consumer", received.consumer()))
                        .update(Duration.ofMillis(Math.max(0, System.currentTimeMillis() - created)));
            }
        } catch (RuntimeException e) {
            LOG.log(Level.FINE, "outbox metrics: inbox receipt not counted", e);
        }
    }

    private static Tag tag(String name, String value) {
        return new Tag(name, value == null || value.isEmpty() ? "none" : value);
    }
}
