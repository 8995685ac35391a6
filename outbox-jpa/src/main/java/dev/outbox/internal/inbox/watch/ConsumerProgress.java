package dev.outbox.internal.inbox.watch;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * The stall rule for one consumer, apart from any clock or broker so it can be tested as plain logic. A consumer is
 * stalled when every reading for the whole stall window found records waiting and it made no attempt on a record
 * meanwhile (an attempt that failed, was held or waited for the database counts: the consumer is alive, and a
 * restart would not help it).
 * <ul>
 *     <li>The window starts at the first such reading, so a consumer idle for an hour is not stalled the moment a
 *     record arrives.</li>
 *     <li>Records finished by another instance of the same Kafka group count as progress too: an instance whose
 *     group's partitions all went to another one must not be named stalled (and restarted) while that one works
 *     through a backlog.</li>
 *     <li>While the source cannot be read (the broker is away) the window is paused, never run out and never
 *     restarted: an outage is not blamed on the consumer, and a short read failure now and then does not hide a
 *     dead one.</li>
 * </ul>
 */
final class ConsumerProgress {

    private Instant lastProgress;
    private Instant waitingSince;
    private Instant pausedAt;
    private long lastFinished = -1;
    private boolean stalled;

    synchronized void progressed(Instant now) {
        lastProgress = now;
        waitingSince = null;
        stalled = false;
    }

    synchronized ConsumerState observe(String consumer, String source, Optional<ConsumerSource.Reading> reading,
                                       Instant now, Duration stallWindow) {
        Duration since = lastProgress == null ? null : Duration.between(lastProgress, now);
        if (reading.isEmpty()) {
            if (pausedAt == null) {
                pausedAt = now;
            }
            // Paused: an unreadable source makes no new stall, and does not clear one the window already earned.
            return new ConsumerState(consumer, source, OptionalLong.empty(), since, stalled);
        }
        if (pausedAt != null) {
            if (waitingSince != null) {
                waitingSince = waitingSince.plus(Duration.between(pausedAt, now));
            }
            pausedAt = null;
        }
        long finished = reading.get().finished();
        if (finished >= 0 && lastFinished >= 0 && finished > lastFinished) {
            waitingSince = null; // the group moved on: somebody finishes this consumer's records
        }
        if (finished >= 0) {
            lastFinished = finished;
        }
        long waiting = reading.get().waiting();
        if (waiting <= 0) {
            waitingSince = null;
        } else if (waitingSince == null) {
            waitingSince = now;
        }
        stalled = waitingSince != null && Duration.between(waitingSince, now).compareTo(stallWindow) >= 0;
        return new ConsumerState(consumer, source, OptionalLong.of(waiting), since, stalled);
    }
}
