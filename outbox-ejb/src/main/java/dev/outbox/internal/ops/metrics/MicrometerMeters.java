package dev.outbox.internal.ops.metrics;

import dev.outbox.internal.event.UuidV7;
import dev.outbox.Inbox;
import dev.outbox.internal.inbox.InboxReceived;
import dev.outbox.internal.publish.BatchSent;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import jakarta.enterprise.inject.Instance;
import jakarta.enterprise.inject.spi.CDI;

import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.function.ToDoubleFunction;
import java.util.logging.Level;
import java.util.logging.Logger;

import static dev.outbox.internal.ops.metrics.OutboxMeter.ALL_TYPES;

/**
 * The outbox's meters on a Micrometer registry: what {@link MicrometerMetrics} records where the server has one.
 * A plain class, not a bean, so that only it names Micrometer types.
 *
 * <p>Only the registry's {@code counter}, {@code gauge} and {@code timer} methods: WildFly hands each deployment a
 * registry that forwards those to its Prometheus registry, while meters made with {@code Counter.builder(...)
 * .register(registry)} stay in the deployment's registry and are never scraped (tried). So no descriptions, and
 * a gauge's unit is part of its name.
 */
final class MicrometerMeters {

    private static final Logger LOG = Logger.getLogger(MicrometerMeters.class.getName());

    private final MeterRegistry registry;
    private final BacklogCache cache;
    private final NewSeries series = new NewSeries();

    private MicrometerMeters(MeterRegistry registry, BacklogCache cache) {
        this.registry = registry;
        this.cache = cache;
    }

    /** The meters on the application's registry, or null when the server offers none as a CDI bean. */
    static MicrometerMeters start(BacklogCache cache) {
        Instance<MeterRegistry> registries = CDI.current().select(MeterRegistry.class);
        if (!registries.isResolvable()) {
            LOG.info("outbox metrics: Micrometer is on the classpath but the server offers no MeterRegistry bean");
            return null;
        }
        MicrometerMeters meters = new MicrometerMeters(registries.get(), cache);
        meters.gauge(OutboxMeter.OLDEST_PENDING_AGE, Tags.of("event_type", ALL_TYPES),
                m -> m.backlog().oldestPendingAge().toMillis() / 1000.0);
        meters.gauge(OutboxMeter.PENDING, Tags.of("event_type", ALL_TYPES), m -> m.backlog().pendingTotal());
        meters.gauge(OutboxMeter.PARKED, Tags.of("event_type", ALL_TYPES), m -> m.backlog().parkedTotal());
        meters.backlog(); // the types of a backlog that exists at start are in the first scrape already
        return meters;
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

    private void gauge(OutboxMeter meter, Tags tags, ToDoubleFunction<MicrometerMeters> value) {
        registry.gauge(meter.unit == null ? meter.meterName : meter.meterName + "." + meter.unit, tags, this, value);
    }

    /** A batch's send outcomes before its confirm, counted once per counter rather than once per event. */
    void sent(BatchSent batch) {
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
    void received(InboxReceived received) {
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
