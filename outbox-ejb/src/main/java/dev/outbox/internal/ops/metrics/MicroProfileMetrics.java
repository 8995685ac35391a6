package dev.outbox.internal.ops.metrics;

import dev.outbox.internal.event.UuidV7;
import dev.outbox.Inbox;
import dev.outbox.internal.inbox.InboxReceived;
import dev.outbox.internal.publish.BatchSent;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.event.Startup;
import jakarta.inject.Inject;
import org.eclipse.microprofile.metrics.Metadata;
import org.eclipse.microprofile.metrics.MetadataBuilder;
import org.eclipse.microprofile.metrics.MetricRegistry;
import org.eclipse.microprofile.metrics.Tag;

import java.time.Duration;
import java.util.EnumMap;
import java.util.Locale;
import java.util.Map;
import java.util.logging.Level;
import java.util.logging.Logger;

import static dev.outbox.internal.ops.metrics.OutboxMeter.ALL_TYPES;

/**
 * The outbox's metrics (R6.1, R6.2) on MicroProfile Metrics (Open Liberty: {@code /metrics}, scope
 * {@code application}), each tagged by event type, so one failing type cannot hide behind the others:
 * <ul>
 *     <li>{@code outbox_oldest_pending_age_seconds}, {@code outbox_pending}, {@code outbox_parked} and
 *     {@code outbox_failing} (pending rows whose last attempt failed, by {@code error_class}): gauges over the
 *     {@link BacklogCache};</li>
 *     <li>{@code outbox_publish_total} by {@code outcome} (delivered, transient, unknown, permanent) and
 *     {@code destination} (the route's transports): what the broker said to this instance's sends;</li>
 *     <li>{@code outbox_inbox_received_total} by {@code consumer} and {@code receipt} (first, duplicate, stale,
 *     held): the duplicate hit rate is duplicate over all; {@code outbox_inbox_latency_seconds} by consumer: from
 *     the event's creation (its UUIDv7 time) to its first processing, the publish-to-consume latency.</li>
 * </ul>
 * A send rate alone shows a pretty zero when the producer stalls (R6.1): alert on the oldest age instead. On a
 * server without the MicroProfile Metrics API (WildFly 39) this class is no bean; {@link MicrometerMetrics} is.
 */
@ApplicationScoped
public class MicroProfileMetrics {

    private static final Logger LOG = Logger.getLogger(MicroProfileMetrics.class.getName());
    private static final Map<OutboxMeter, Metadata> METADATA = new EnumMap<>(OutboxMeter.class);

    static {
        for (OutboxMeter meter : OutboxMeter.values()) {
            MetadataBuilder builder = Metadata.builder().withName(meter.meterName).withDescription(meter.description);
            METADATA.put(meter, (meter.unit == null ? builder : builder.withUnit(meter.unit)).build());
        }
    }

    @Inject
    MetricRegistry registry;

    @Inject
    BacklogCache cache;

    private final NewSeries series = new NewSeries();

    void start(@Observes Startup startup) {
        // The all-types series always exists; a scrape refreshes the backlog and adds the types that appeared, which
        // show from the next scrape on (the exporter has written the earlier families by then).
        registry.gauge(metadata(OutboxMeter.OLDEST_PENDING_AGE), this,
                m -> m.backlog().oldestPendingAge().toMillis() / 1000.0, tag("event_type", ALL_TYPES));
        registry.gauge(metadata(OutboxMeter.PENDING), this, m -> m.backlog().pendingTotal(), tag("event_type", ALL_TYPES));
        registry.gauge(metadata(OutboxMeter.PARKED), this, m -> m.backlog().parkedTotal(), tag("event_type", ALL_TYPES));
        backlog(); // the types of a backlog that exists at start are in the first scrape already
    }

    private Backlog backlog() {
        Backlog backlog = cache.backlog();
        series.of(backlog, this::gaugeType, this::gaugeFailing);
        return backlog;
    }

    private void gaugeType(String type) {
        Tag eventType = tag("event_type", type);
        registry.gauge(metadata(OutboxMeter.OLDEST_PENDING_AGE), this,
                m -> m.backlog().oldestPendingAge(type).toMillis() / 1000.0, eventType);
        registry.gauge(metadata(OutboxMeter.PENDING), this, m -> m.backlog().pending().getOrDefault(type, 0L), eventType);
        registry.gauge(metadata(OutboxMeter.PARKED), this, m -> m.backlog().parked().getOrDefault(type, 0L), eventType);
    }

    private void gaugeFailing(String type, String errorClass) {
        registry.gauge(metadata(OutboxMeter.FAILING), this, m -> m.backlog().failingByClass().getOrDefault(type, Map.of())
                .getOrDefault(errorClass, 0L), tag("event_type", type), tag("error_class", errorClass));
    }

    /** A batch's send outcomes before its confirm, counted once per counter rather than once per event. */
    void sent(@Observes BatchSent batch) {
        try {
            batch.counts().forEach((sent, count) -> registry.counter(metadata(OutboxMeter.PUBLISHED),
                    tag("event_type", sent.eventType()), tag("destination", sent.destination()),
                    tag("outcome", sent.outcome())).inc(count));
        } catch (RuntimeException e) {
            LOG.log(Level.FINE, "outbox metrics: send outcomes not counted", e);
        }
    }

    /** Called in the consumer's transaction: it must never fail it. */
    void received(@Observes InboxReceived received) {
        try {
            registry.counter(metadata(OutboxMeter.RECEIVED), tag("consumer", received.consumer()),
                    tag("receipt", received.receipt().name().toLowerCase(Locale.ROOT))).inc();
            if (received.receipt() == Inbox.Receipt.FIRST) {
                long created = UuidV7.millisOf(received.eventId().value());
                registry.timer(metadata(OutboxMeter.LATENCY), tag("consumer", received.consumer()))
                        .update(Duration.ofMillis(Math.max(0, System.currentTimeMillis() - created)));
            }
        } catch (RuntimeException e) {
            LOG.log(Level.FINE, "outbox metrics: inbox receipt not counted", e);
        }
    }

    private static Metadata metadata(OutboxMeter meter) {
        return METADATA.get(meter);
    }

    private static Tag tag(String name, String value) {
        return new Tag(name, OutboxMeter.tagValue(value));
    }
}
