package dev.outbox.internal.protocol;

import dev.outbox.internal.persistence.Expired;

import java.time.Duration;
import java.time.OffsetDateTime;

/**
 * Cleanup's decisions (R8.1, R5.6): the cut-off of each kind of row, and batches until one comes back short or the
 * run's limit is reached. Each batch is deleted by the caller's {@link Batches}, in a transaction of its own on the
 * server, so a run never holds long locks; the protocol checker runs the same decisions on a real database.
 *
 * @param deliveredRetention how long a delivered outbox row is kept (the replay tool's reach, R9.2)
 * @param inboxRetention     how long holds and settled side effects are kept, as the inbox marks are
 */
public record Retention(Duration deliveredRetention, Duration inboxRetention, int batchSize, int maxBatchesPerRun) {

    /** Deletes one batch of a kind past its cut-off and answers how many rows went. */
    @FunctionalInterface
    public interface Batches {
        int delete(Expired what, OffsetDateTime cutOff, int limit);
    }

    /** What one run deleted. */
    public record Deleted(int deliveredEvents, int inboxMarks, int holds, int sideEffects) {
        public int total() {
            return deliveredEvents + inboxMarks + holds + sideEffects;
        }
    }

    /** One cleanup run at {@code now} (the database's clock or the server's, the same the rows were written by). */
    public Deleted run(OffsetDateTime now, Batches batches) {
        int delivered = drain(Expired.DELIVERED_EVENTS, deliveredBefore(now), batches);
        // A mark carries its own retain-until, fixed when it was written (R5.6).
        int marks = drain(Expired.INBOX_MARKS, now, batches);
        // A hold whose message never came back (the broker gave it up) is evidence for as long as a mark.
        OffsetDateTime heldBefore = now.minus(inboxRetention);
        int holds = drain(Expired.INBOX_HOLDS, heldBefore, batches);
        int effects = drain(Expired.SETTLED_SIDE_EFFECTS, heldBefore, batches);
        return new Deleted(delivered, marks, holds, effects);
    }

    /** The cut-off of delivered rows at {@code now}: the oldest delivery a replay can still find. */
    public OffsetDateTime deliveredBefore(OffsetDateTime now) {
        return now.minus(deliveredRetention);
    }

    private int drain(Expired what, OffsetDateTime cutOff, Batches batches) {
        int total = 0;
        for (int i = 0; i < maxBatchesPerRun; i++) {
            int deleted = batches.delete(what, cutOff, batchSize);
            total += deleted;
            if (deleted < batchSize) {
                break;
            }
        }
        return total;
    }
}
