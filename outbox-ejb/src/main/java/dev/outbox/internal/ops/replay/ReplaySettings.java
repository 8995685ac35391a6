package dev.outbox.internal.ops.replay;

import dev.outbox.internal.config.SettingReader;

import java.time.Duration;
import java.util.Optional;
import java.util.function.Function;

/**
 * Replay settings (R9.4), each a server.xml variable read through MicroProfile Config.
 *
 * @param approvalThreshold {@code outbox.replay.approval-threshold}, default 100: a replay of more events than
 *                          this waits for a second, different person with the approver role
 * @param ratePerSecond     {@code outbox.replay.rate-per-second}, default 100: replayed events come due this
 *                          many per second, so a big replay never floods the brokers or the consumers (R6.5)
 * @param maxEvents         {@code outbox.replay.max-events}, default 10000: the largest replay one request may
 *                          select; split bigger ones by time range
 * @param approvalWindow    {@code outbox.replay.approval-window}, default PT24H: the events one person replayed
 *                          without a second approver in this window count with a new request against the threshold,
 *                          so splitting a big replay into small requests does not dodge the approval
 */
public record ReplaySettings(int approvalThreshold, int ratePerSecond, int maxEvents, Duration approvalWindow) {

    public static ReplaySettings read(Function<String, Optional<String>> source) {
        SettingReader reader = new SettingReader(source);
        return new ReplaySettings(
                reader.integer("outbox.replay.approval-threshold", 100, 1, 1_000_000),
                reader.integer("outbox.replay.rate-per-second", 100, 1, 100_000),
                reader.integer("outbox.replay.max-events", 10_000, 1, 1_000_000),
                reader.duration("outbox.replay.approval-window", Duration.ofHours(24)));
    }
}
