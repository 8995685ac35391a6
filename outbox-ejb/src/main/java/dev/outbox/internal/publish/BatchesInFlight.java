package dev.outbox.internal.publish;

/**
 * The batches of one publisher run between their claim and their confirm: at most {@code outbox.publisher.workers}
 * at once, each holding at most one pooled connection at a time (its claim's, then its confirm's). The run's claimer
 * takes a slot before it claims; the batch gives it back once confirmed, or at once when the claim found nothing.
 */
final class BatchesInFlight {

    private int slots;
    private int taken;
    private long finished;

    BatchesInFlight(int slots) {
        this.slots = slots;
    }

    /** Waits for a free slot and takes it; returns how many batches had finished by then, for {@link #awaitFinishedAfter}. */
    synchronized long take() throws InterruptedException {
        while (taken >= slots) {
            wait();
        }
        taken++;
        return finished;
    }

    /** Other batches between claim and confirm besides the slot just taken. */
    synchronized int others() {
        return taken - 1;
    }

    /** Allows at most {@code most} batches in flight from now on (never fewer than one); those already out finish. */
    synchronized void narrowTo(int most) {
        slots = Math.max(1, Math.min(slots, most));
    }

    /** A claim that found nothing: the slot is free again, and no batch finished. */
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

    /** Waits until a batch has finished since {@code ticket} was taken, or until none is in flight. */
    synchronized void awaitFinishedAfter(long ticket) throws InterruptedException {
        while (finished == ticket && taken > 0) {
            wait();
        }
    }

    /** Waits until every batch has finished; the run ends only then, so its end means nothing of it is in flight. */
    synchronized void awaitNone() {
        boolean interrupted = false;
        while (taken > 0) {
            try {
                wait();
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }
}
