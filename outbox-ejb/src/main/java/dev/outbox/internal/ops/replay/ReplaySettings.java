package dev.outbox.internal.ops.replay;

import dev.outbox.internal.config.Settings;

import java.time.Duration;
import java.util.Optional;
import java.util.function.Function;

/**
 * Replay settings (R9.4), read once at start (their declarations, defaults and meaning are in {@link Settings}).
 */
public record ReplaySettings(int approvalThreshold, int ratePerSecond, int maxEvents, Duration approvalWindow) {

    public static ReplaySettings read(Function<String, Optional<String>> source) {
        return new ReplaySettings(
                Settings.REPLAY_APPROVAL_THRESHOLD.integer(source),
                Settings.REPLAY_RATE.integer(source),
                Settings.REPLAY_MAX_EVENTS.integer(source),
                Settings.REPLAY_APPROVAL_WINDOW.duration(source));
    }
}
