package dev.outbox.internal.ops.metrics;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import org.eclipse.microprofile.metrics.Counter;
import org.eclipse.microprofile.metrics.Metadata;
import org.eclipse.microprofile.metrics.MetadataBuilder;
import org.eclipse.microprofile.metrics.MetricRegistry;
import org.eclipse.microprofile.metrics.Tag;
import org.eclipse.microprofile.metrics.Timer;

import java.time.Duration;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.DoubleSupplier;

/**
 * The meters on MicroProfile Metrics (Open Liberty: {@code /metrics}, scope {@code application}), with their
 * descriptions and units. A bean, because Liberty hands out the application's registry only by injection (a
 * programmatic lookup fails in its producer); only it names MicroProfile Metrics types, so on a server without the
 * API (WildFly 39) it is simply no bean (Weld logs WELD-000119 at INFO) and {@link OutboxMetrics} finds none.
 */
@ApplicationScoped
public class MicroProfileMeters implements Meters {

    private static final Map<OutboxMeter, Metadata> METADATA = new EnumMap<>(OutboxMeter.class);

    static {
        for (OutboxMeter meter : OutboxMeter.values()) {
            MetadataBuilder builder = Metadata.builder().withName(meter.meterName).withDescription(meter.description);
            METADATA.put(meter, (meter.unit == null ? builder : builder.withUnit(meter.unit)).build());
        }
    }

    @Inject
    MetricRegistry registry;

    /**
     * Counters and timers by series, registered once: the registry's own lookup (metadata checks, tag validation,
     * the application tag) per event was a tenth of each Kafka consumer's time in the B3 benchmark's profile.
     */
    private final Map<Series, Counter> counters = new ConcurrentHashMap<>();
    private final Map<Series, Timer> timers = new ConcurrentHashMap<>();

    private record Series(OutboxMeter meter, Map<String, String> tags) {
    }

    @Override
    public void gauge(OutboxMeter meter, Map<String, String> tags, DoubleSupplier value) {
        registry.gauge(METADATA.get(meter), value, DoubleSupplier::getAsDouble, tags(tags));
    }

    @Override
    public void count(OutboxMeter meter, Map<String, String> tags, long increment) {
        counters.computeIfAbsent(new Series(meter, Map.copyOf(tags)),
                series -> registry.counter(METADATA.get(meter), tags(tags))).inc(increment);
    }

    @Override
    public void time(OutboxMeter meter, Map<String, String> tags, Duration duration) {
        timers.computeIfAbsent(new Series(meter, Map.copyOf(tags)),
                series -> registry.timer(METADATA.get(meter), tags(tags))).update(duration);
    }

    private static Tag[] tags(Map<String, String> tags) {
        return tags.entrySet().stream().map(t -> new Tag(t.getKey(), t.getValue())).toArray(Tag[]::new);
    }
}
