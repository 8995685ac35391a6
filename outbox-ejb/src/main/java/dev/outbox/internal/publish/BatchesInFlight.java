package dev.outbox.internal.publish;

/**
 * The batches of one publisher run between their claim and their confirm: at most {@code outbox.publisher.workers}
 * at once, each holding at most one pooled connection at a time (its claim's, then its confirm's). The run's claimer
 * takes a slot before it claims; the batch gives it back once confirmed, or at once when the claim found nothing.
 * Every wait is timed, so the claimer can look after a batch no managed thread has started ({@link RunLoop}).
 */
final class BatchesInFlight {

    private int slots;
    private int taken;
    private long finished;

    BatchesInFlight(int slots) {
        this.slots = slots;
    }

    /**
     * Takes a free slot, waiting at most {@code millis} for one; returns how many batches had finished by then (for
     * {@link #awaitFinishedAfter}), or -1 when no slot came free in time.
     */
    synchronized long take(long millis) throws InterruptedException {
        if (taken >= slots) {
            wait(millis);
        }
        if (taken >= slots) {
            return -1;
        }
        taken++;
        return finished;
    }

    /** The most batches allowed in flight now. */
    synchronized int slots() {
        return slots;
    }

    /** Other batches between claim and confirm besides the slot just taken. */
    synchronized int others() {
        return taken - 1;
    }

    /** Allows at most {@code most} batches in flight from now on (never fewer than one); those already out finish. */
    synchronized void narrowTo(int most) {
        slots = Math.max(1, Math.min(slots, most));
    }

    /** A claim that found nothing, or failed: the slot is free again, and no batch finished. */
    synchronized void giveBackUnused() {
        taken--;
        notifyAll();
    }

    /** A batch confirmed (or failed): its slot is free, and the rows it held are no longer leased to this run. */
    synchronized void finish() {
        taken--;
        finished++;
        notifyAll();
    }

    /**
     * Waits at most {@code millis} until a batch has finished since {@code ticket} was taken, or until none is in
     * flight; returns whether one of those happened.
     */
    synchronized boolean awaitFinishedAfter(long ticket, long millis) throws InterruptedException {
        if (finished == ticket && taken > 0) {
            wait(millis);
        }
        return finished != ticket || taken == 0;
    }

    /** Waits at most {@code millis} until every batch has finished; returns whether they all have. */
    synchronized boolean awaitNone(long millis) throws InterruptedException {
        if (taken > 0) {
            wait(millis);
        }
        return taken == 0;
    }
}
