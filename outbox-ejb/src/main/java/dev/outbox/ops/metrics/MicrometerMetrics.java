package dev.outbox.ops.metrics;

import dev.outbox.event.UuidV7;
import dev.outbox.inbox.Inbox;
import dev.outbox.inbox.InboxReceived;
import dev.outbox.publish.BatchSent;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.event.Startup;
import jakarta.inject.Inject;

import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.function.ToDoubleFunction;
import java.util.logging.Level;
import java.util.logging.Logger;

import static dev.outbox.ops.metrics.OutboxMeter.ALL_TYPES;

/**
 * The same meters as {@link MicroProfileMetrics}, on Micrometer: WildFly 39 dropped MicroProfile Metrics and
 * serves Micrometer's Prometheus registry instead (its micrometer subsystem, {@code :9990/metrics} in the
 * example's CLI script). Same series names and tags, so dashboards and alerts work on both servers (WildFly adds
 * a {@code WF_DEPLOYMENT} tag). On a server without the Micrometer API (Open Liberty) this class is no bean.
 *
 * <p>Only the registry's {@code counter}, {@code gauge} and {@code timer} methods: WildFly hands each deployment a
 * registry that forwards those to its Prometheus registry, while meters made with {@code Counter.builder(...)
 * .register(registry)} stay in the deployment's registry and are never scraped (tried). So no descriptions, and
 * a gauge's unit is part of its name.
 */
@ApplicationScoped
public class MicrometerMetrics {

    private static final Logger LOG = Logger.getLogger(MicrometerMetrics.class.getName());

    @Inject
    MeterRegistry registry;

    @Inject
    BacklogCache cache;

    private final NewSeries series = new NewSeries();

    void start(@Observes Startup startup) {
        gauge(OutboxMeter.OLDEST_PENDING_AGE, Tags.of("event_type", ALL_TYPES),
                m -> m.backlog().oldestPendingAge().toMillis() / 1000.0);
        gauge(OutboxMeter.PENDING, Tags.of("event_type", ALL_TYPES), m -> m.backlog().pendingTotal());
        gauge(OutboxMeter.PARKED, Tags.of("event_type", ALL_TYPES), m -> m.backlog().parkedTotal());
        backlog(); // the types of a backlog that exists at start are in the first scrape already
    }

    private Backlog backlog() {
        Backlog backlog = cache.backlog();
        series.of(backlog, this::gaugeType, this::gaugeFailing);
        return backlog;
    }

    private void gaugeType(String type) {
        Tags eventType = Tags.of("event_type", OutboxMeter.tagValue(type));
        gauge(OutboxMeter.OLDEST_PENDING_AGE, eventType, m -> m.backlog().oldestPendingAge(type).toMillis() / 1000.0);
        gauge(OutboxMeter.PENDING, eventType, m -> m.backlog().pending().getOrDefault(type, 0L));
        gauge(OutboxMeter.PARKED, eventType, m -> m.backlog().parked().getOrDefault(type, 0L));
    }

    private void gaugeFailing(String type, String errorClass) {
        gauge(OutboxMeter.FAILING, Tags.of("event_type", OutboxMeter.tagValue(type), "error_class",
                        OutboxMeter.tagValue(errorClass)),
                m -> m.backlog().failingByClass().getOrDefault(type, Map.of()).getOrDefault(errorClass, 0L));
    }

    private void gauge(OutboxMeter meter, Tags tags, ToDoubleFunction<MicrometerMetrics> value) {
        registry.gauge(meter.unit == null ? meter.meterName : meter.meterName + "." + meter.unit, tags, this, value);
    }

    /** A batch's send outcomes before its confirm, counted once per counter rather than once per event. */
    void sent(@Observes BatchSent batch) {
        try {
            batch.counts().forEach((sent, count) -> registry.counter(OutboxMeter.PUBLISHED.meterName,
                    Tags.of("event_type", OutboxMeter.tagValue(sent.eventType()),
                            "destination", OutboxMeter.tagValue(sent.destination()), "outcome", sent.outcome()))
                    .increment(count));
        } catch (RuntimeException e) {
            LOG.log(Level.FINE, "outbox metrics: send outcomes not counted", e);
        }
    }

    /** Called in the consumer's transaction: it must never fail it. */
    void received(@Observes InboxReceived received) {
        try {
            String consumer = OutboxMeter.tagValue(received.consumer());
            registry.counter(OutboxMeter.RECEIVED.meterName, Tags.of("consumer", consumer,
                    "receipt", received.receipt().name().toLowerCase(Locale.ROOT))).increment();
            if (received.receipt() == Inbox.Receipt.FIRST) {
                long created = UuidV7.millisOf(received.eventId().value());
                registry.timer(OutboxMeter.LATENCY.meterName, Tags.of("consumer", consumer))
                        .record(Duration.ofMillis(Math.max(0, System.currentTimeMillis() - created)));
            }
        } catch (RuntimeException e) {
            LOG.log(Level.FINE, "outbox metrics: inbox receipt not counted", e);
        }
    }
}
