package dev.outbox.internal.ops.cleanup;

import dev.outbox.internal.config.Settings;

import java.time.Duration;
import java.util.Optional;
import java.util.function.Function;

/**
 * Cleanup settings (R8.1, R5.6), read once at start (their declarations, defaults and meaning are in
 * {@link Settings}).
 */
public record CleanupSettings(boolean enabled, Duration interval, Duration deliveredRetention, int batchSize,
                              int maxBatchesPerRun, Duration redeliveryWindow, Duration recoveryWindow) {

    public static CleanupSettings read(Function<String, Optional<String>> source) {
        return new CleanupSettings(
                Settings.CLEANUP_ENABLED.flag(source),
                Settings.CLEANUP_INTERVAL.millis(source),
                Settings.CLEANUP_DELIVERED_RETENTION.duration(source),
                Settings.CLEANUP_BATCH_SIZE.integer(source),
                Settings.CLEANUP_MAX_BATCHES.integer(source),
                Settings.INBOX_REDELIVERY_WINDOW.duration(source),
                Settings.INBOX_RECOVERY_WINDOW.duration(source));
    }

    /** R5.6, R9.5: an inbox mark deleted before these windows pass lets a late duplicate run twice. */
    public Duration minimumInboxRetention() {
        return redeliveryWindow.plus(recoveryWindow);
    }
}
