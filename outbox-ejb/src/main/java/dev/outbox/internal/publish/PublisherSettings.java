package dev.outbox.internal.publish;

import dev.outbox.internal.config.SettingReader;

import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.Arrays;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * The publisher's settings, each a server.xml variable read through MicroProfile Config (README, settings).
 *
 * @param enabled          {@code outbox.publisher.enabled}, default true: false leaves rows pending
 * @param interval         {@code outbox.publisher.interval-ms}, default 1000: the timer between runs; a commit
 *                         wakes the publisher earlier, so this bounds latency only when a wake-up is lost
 * @param batchSize        {@code outbox.publisher.batch-size}, default 500: rows per claim transaction (500 drained
 *                         twice as fast as 100 in the benchmark, issue 8)
 * @param maxBatchesPerRun {@code outbox.publisher.max-batches-per-run}, default 100: bounds one run, so one
 *                         server's backlog cannot starve its other timers
 * @param workers          {@code outbox.publisher.workers}, default 1: drains that run at once while a backlog
 *                         lasts (a full batch came back); each holds a pooled connection during its claim and
 *                         confirm. Strict types keep their order with any number (the claim waits for earlier
 *                         versions); independent types may then arrive out of version order across batches
 * @param lease            {@code outbox.publisher.lease-ms}, default 30000: how long a claim is exclusive; a
 *                         dead claimer's rows are due again after it (R4.3)
 * @param backoff          {@code outbox.publisher.backoff.initial-ms} (500) and {@code .max-ms} (300000)
 * @param claimerId        {@code outbox.publisher.claimer-id}, default host, pid and a random suffix
 * @param strictByDefault  {@code outbox.ordering.default}: {@code strict} (default) or {@code independent}
 * @param orderingExceptions {@code outbox.ordering.independent} (when the default is strict) or
 *                         {@code outbox.ordering.strict} (when it is independent): comma-separated event types
 */
public record PublisherSettings(boolean enabled, Duration interval, int batchSize, int maxBatchesPerRun,
                                int workers, Duration lease, Backoff backoff, String claimerId,
                                boolean strictByDefault, Set<String> orderingExceptions) {

    public static PublisherSettings read(Function<String, Optional<String>> source) {
        SettingReader reader = new SettingReader(source);
        boolean strict = reader.oneOf("outbox.ordering.default", "strict", "strict", "independent").equals("strict");
        String exceptionsName = strict ? "outbox.ordering.independent" : "outbox.ordering.strict";
        Set<String> exceptions = Arrays.stream(reader.text(exceptionsName, "").split(","))
                .map(String::trim).filter(s -> !s.isEmpty()).collect(Collectors.toUnmodifiableSet());
        int initial = reader.integer("outbox.publisher.backoff.initial-ms", 500, 1, 3_600_000);
        int max = reader.integer("outbox.publisher.backoff.max-ms", 300_000, initial, 86_400_000);
        return new PublisherSettings(
                reader.flag("outbox.publisher.enabled", true),
                Duration.ofMillis(reader.integer("outbox.publisher.interval-ms", 1000, 10, 3_600_000)),
                reader.integer("outbox.publisher.batch-size", 500, 1, 10_000),
                reader.integer("outbox.publisher.max-batches-per-run", 100, 1, 100_000),
                reader.integer("outbox.publisher.workers", 1, 1, 16),
                Duration.ofMillis(reader.integer("outbox.publisher.lease-ms", 30_000, 100, 3_600_000)),
                new Backoff(Duration.ofMillis(initial), Duration.ofMillis(max)),
                reader.text("outbox.publisher.claimer-id", defaultClaimer()),
                strict, exceptions);
    }

    /** Whether events of this type wait for every earlier version of their aggregate (R4.6). */
    public boolean isStrict(String eventType) {
        return strictByDefault != orderingExceptions.contains(eventType);
    }

    private static String defaultClaimer() {
        // "pid@host" from the JVM, plus a suffix so a restarted server never reuses a dead one's leases.
        String jvm = ManagementFactory.getRuntimeMXBean().getName();
        String id = jvm + "/" + UUID.randomUUID().toString().substring(0, 8);
        return id.length() <= 100 ? id : id.substring(id.length() - 100);
    }
}
