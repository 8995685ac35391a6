package dev.outbox.internal.inbox.watch;

import java.time.Duration;
import java.time.Instant;
import java.util.OptionalLong;

/**
 * The stall rule for one consumer, apart from any clock or broker so it can be tested as plain logic. A consumer is
 * stalled when every observation for the whole stall window found records waiting and it finished none meanwhile.
 * The window starts at the first such observation, so a consumer idle for an hour is not stalled the moment a
 * record arrives, and an observation that cannot read its source (broker away) starts it afresh: after an outage a
 * consumer gets a whole window to reconnect before it counts as stalled.
 */
final class ConsumerProgress {

    private Instant lastProgress;
    private Instant waitingSince;

    synchronized void progressed(Instant now) {
        lastProgress = now;
        waitingSince = null;
    }

    synchronized ConsumerState observe(String consumer, String source, OptionalLong waiting, Instant now,
                                       Duration stallWindow) {
        if (waiting.isEmpty() || waiting.getAsLong() <= 0) {
            waitingSince = null;
        } else if (waitingSince == null) {
            waitingSince = now;
        }
        boolean stalled = waitingSince != null && Duration.between(waitingSince, now).compareTo(stallWindow) >= 0;
        Duration since = lastProgress == null ? null : Duration.between(lastProgress, now);
        return new ConsumerState(consumer, source, waiting, since, stalled);
    }
}
