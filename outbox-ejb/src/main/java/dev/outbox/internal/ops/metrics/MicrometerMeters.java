package dev.outbox.internal.ops.metrics;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import jakarta.enterprise.inject.Instance;
import jakarta.enterprise.inject.spi.CDI;

import java.time.Duration;
import java.util.Map;
import java.util.function.DoubleSupplier;

/**
 * The meters on a Micrometer registry (WildFly 39 dropped MicroProfile Metrics and serves Micrometer's Prometheus
 * registry: {@code :9990/metrics} in the example's CLI script). Same series names and tags as on Open Liberty, so
 * dashboards and alerts work on both (WildFly adds a {@code WF_DEPLOYMENT} tag). A plain class, not a bean: only it
 * names Micrometer types, and it is loaded only where the server has Micrometer.
 *
 * <p>Only the registry's {@code counter}, {@code gauge} and {@code timer} methods: WildFly hands each deployment a
 * registry that forwards those to its Prometheus registry, while meters made with {@code Counter.builder(...)
 * .register(registry)} stay in the deployment's registry and are never scraped (tried). So no descriptions, and
 * a gauge's unit is part of its name.
 */
final class MicrometerMeters implements Meters {

    private final MeterRegistry registry;

    private MicrometerMeters(MeterRegistry registry) {
        this.registry = registry;
    }

    /** The application's registry, or null when the server offers none as a CDI bean. */
    static Meters find() {
        Instance<MeterRegistry> registries = CDI.current().select(MeterRegistry.class);
        return registries.isResolvable() ? new MicrometerMeters(registries.get()) : null;
    }

    @Override
    public void gauge(OutboxMeter meter, Map<String, String> tags, DoubleSupplier value) {
        // The registry keeps only a weak reference to the state object: the supplier is held by OutboxMetrics.
        registry.gauge(meter.unit == null ? meter.meterName : meter.meterName + "." + meter.unit, tags(tags), value,
                DoubleSupplier::getAsDouble);
    }

    @Override
    public void count(OutboxMeter meter, Map<String, String> tags, long increment) {
        registry.counter(meter.meterName, tags(tags)).increment(increment);
    }

    @Override
    public void time(OutboxMeter meter, Map<String, String> tags, Duration duration) {
        registry.timer(meter.meterName, tags(tags)).record(duration);
    }

    private static Tags tags(Map<String, String> tags) {
        Tags all = Tags.empty();
        for (Map.Entry<String, String> tag : tags.entrySet()) {
            all = all.and(tag.getKey(), tag.getValue());
        }
        return all;
    }
}
