package dev.outbox.internal.publish;

import dev.outbox.internal.config.Settings;
import dev.outbox.internal.protocol.Backoff;

import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.function.Function;

/**
 * The publisher's settings, read once at start (their declarations, defaults and meaning are in {@link Settings}).
 *
 * @param orderingExceptions the event types listed in {@code outbox.ordering.independent} (when the default is
 *                           strict) or {@code outbox.ordering.strict} (when it is independent)
 */
public record PublisherSettings(boolean enabled, Duration interval, int batchSize, int maxBatchesPerRun,
                                int workers, Duration lease, Backoff backoff, String claimerId,
                                boolean strictByDefault, Set<String> orderingExceptions) {

    public static PublisherSettings read(Function<String, Optional<String>> source) {
        boolean strict = Settings.ORDERING_DEFAULT.choice(source).equals("strict");
        Set<String> exceptions = (strict ? Settings.ORDERING_INDEPENDENT : Settings.ORDERING_STRICT).list(source);
        Duration initial = Settings.BACKOFF_INITIAL.millis(source);
        Duration max = Settings.BACKOFF_MAX.millisAtLeast(source, initial);
        String claimer = Settings.CLAIMER_ID.text(source);
        return new PublisherSettings(
                Settings.PUBLISHER_ENABLED.flag(source),
                Settings.PUBLISHER_INTERVAL.millis(source),
                Settings.PUBLISHER_BATCH_SIZE.integer(source),
                Settings.PUBLISHER_MAX_BATCHES.integer(source),
                Settings.PUBLISHER_WORKERS.integer(source),
                Settings.PUBLISHER_LEASE.millis(source),
                new Backoff(initial, max),
                claimer != null ? claimer : defaultClaimer(),
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
