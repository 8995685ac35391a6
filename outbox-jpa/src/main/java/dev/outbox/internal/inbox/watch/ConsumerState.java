package dev.outbox.internal.inbox.watch;

import java.time.Duration;
import java.util.OptionalLong;

/**
 * One inbox consumer as last observed: what waits for it at its source (empty: the source could not say), how long
 * ago it last finished a record, and whether it counts as stalled: records have waited for longer than the stall
 * window while it finished none (R6.1).
 *
 * @param sinceProgress time since it last finished a record, or null when it has finished none since start
 */
public record ConsumerState(String consumer, String source, OptionalLong waiting, Duration sinceProgress,
                            boolean stalled) {
}
