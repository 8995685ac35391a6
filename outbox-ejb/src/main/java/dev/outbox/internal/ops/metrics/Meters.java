package dev.outbox.internal.ops.metrics;

import java.time.Duration;
import java.util.Map;
import java.util.function.DoubleSupplier;

/**
 * Where the outbox's meters go: the port {@link OutboxMetrics} records through, with one adapter per metrics API
 * a server offers (MicroProfile Metrics on Open Liberty, Micrometer on WildFly). Tags are names to values, never
 * empty (Prometheus drops an empty label).
 */
interface Meters {

    /** A gauge read at each scrape; registering the same meter and tags twice keeps the first. */
    void gauge(OutboxMeter meter, Map<String, String> tags, DoubleSupplier value);

    void count(OutboxMeter meter, Map<String, String> tags, long increment);

    void time(OutboxMeter meter, Map<String, String> tags, Duration duration);
}
