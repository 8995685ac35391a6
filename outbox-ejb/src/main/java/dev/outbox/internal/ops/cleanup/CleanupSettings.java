package dev.outbox.internal.ops.cleanup;

import dev.outbox.internal.config.SettingReader;

import java.time.Duration;
import java.util.Optional;
import java.util.function.Function;

/**
 * Cleanup settings (R8.1, R5.6), each a server.xml variable read through MicroProfile Config.
 *
 * @param enabled            {@code outbox.cleanup.enabled}, default true
 * @param interval           {@code outbox.cleanup.interval-ms}, default 60000
 * @param deliveredRetention {@code outbox.cleanup.delivered-retention}, ISO-8601, default P7D: how long a
 *                           delivered row is kept after its confirm (redelivery, reconciliation and audit)
 * @param batchSize          {@code outbox.cleanup.batch-size}, default 500: rows per delete transaction
 * @param maxBatchesPerRun   {@code outbox.cleanup.max-batches-per-run}, default 20: the per-run limit
 * @param redeliveryWindow   {@code outbox.inbox.redelivery-window}, ISO-8601, default P1D: the longest time the
 *                           broker may redeliver a message
 * @param recoveryWindow     {@code outbox.inbox.recovery-window}, ISO-8601, default P7D: the age of the oldest
 *                           backup you may restore (R9.5)
 */
public record CleanupSettings(boolean enabled, Duration interval, Duration deliveredRetention, int batchSize,
                              int maxBatchesPerRun, Duration redeliveryWindow, Duration recoveryWindow) {

    public static CleanupSettings read(Function<String, Optional<String>> source) {
        SettingReader reader = new SettingReader(source);
        return new CleanupSettings(
                reader.flag("outbox.cleanup.enabled", true),
                Duration.ofMillis(reader.integer("outbox.cleanup.interval-ms", 60_000, 100, 86_400_000)),
                reader.duration("outbox.cleanup.delivered-retention", Duration.ofDays(7)),
                reader.integer("outbox.cleanup.batch-size", 500, 1, 100_000),
                reader.integer("outbox.cleanup.max-batches-per-run", 20, 1, 100_000),
                reader.duration("outbox.inbox.redelivery-window", Duration.ofDays(1)),
                reader.duration("outbox.inbox.recovery-window", Duration.ofDays(7)));
    }

    /** R5.6, R9.5: an inbox mark deleted before these windows pass lets a late duplicate run twice. */
    public Duration minimumInboxRetention() {
        return redeliveryWindow.plus(recoveryWindow);
    }
}
