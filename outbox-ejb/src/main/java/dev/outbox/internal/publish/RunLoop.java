package dev.outbox.internal.publish;

import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.Supplier;
import java.util.function.ToIntFunction;

/**
 * One publisher run (issue 44): the calling thread claims batch after batch, and up to {@code workers} of them are
 * between claim and confirm at once, each sent and confirmed on the executor while the next is claimed (on the
 * calling thread itself with one worker, as before). One claimer is the point: each claim takes the oldest due rows,
 * so the only due rows it walks past are the versions waiting behind this run's own batches in flight. Workers that
 * each claimed for themselves drifted apart in version, and each claim walked the other's waiting versions with a
 * strict check for each (74,500 rows rejected for 500 kept): 2 of them drained at 0.45 to 0.98 of one.
 *
 * <p>The run ends at its first short claim made with nothing else in flight (with one worker: its first short claim,
 * as before). A short claim made beside other batches may have found their aggregates' next versions waiting
 * (R4.6), so the run claims again once one of those has finished, and from then on keeps no more batches out than
 * were out beside it: with 4 workers on a backlog of 1,000 aggregates, every fourth claim found every aggregate in
 * flight, walked the whole backlog for nothing, and the drain ran at 0.30 of 2 workers. A run cut at its batch limit
 * with its last claim full hands that depth to the next run, which goes on with the same backlog one wider (so a
 * depth narrowed by something passing comes back); a run that found the table drained does not. The run returns when
 * every batch it claimed has been confirmed or has failed, or when its thread is interrupted (stopping).
 *
 * <p>The claimer never waits on a batch no managed thread has started: a pool whose threads are all busy (the run
 * itself may hold one of them), or a task the container drops, would otherwise hold the run, and with it this
 * server's publisher, for good. A batch still unstarted {@link #STEAL_AFTER_MS} after it was handed over is run by
 * the claimer; whichever of the two starts it first runs it.
 *
 * @param <B> a claimed batch
 */
final class RunLoop<B> {

    /** How long a batch may wait for a managed thread before the claimer runs it itself. */
    static final long STEAL_AFTER_MS = 100;

    private final int workers;
    private final int batchSize;
    private final int maxBatches;
    private final Executor executor;
    private final BooleanSupplier stopped;
    private final ToIntFunction<B> size;
    private final Consumer<Throwable> batchFailed;
    private final Queue<Handoff> handedOff = new ConcurrentLinkedQueue<>();

    /**
     * @param batchFailed told of a batch that failed after its claim, off the claim's own path (its leases expire); a
     *                    failure of a batch published inline with one worker ends the run and is thrown instead
     */
    RunLoop(int workers, int batchSize, int maxBatches, Executor executor, BooleanSupplier stopped,
            ToIntFunction<B> size, Consumer<Throwable> batchFailed) {
        this.workers = workers;
        this.batchSize = batchSize;
        this.maxBatches = maxBatches;
        this.executor = executor;
        this.stopped = stopped;
        this.size = size;
        this.batchFailed = batchFailed;
    }

    /**
     * How a run ended: the most batches it allowed in flight at its end, and whether it stopped at its batch limit
     * with its last claim full (the same backlog goes on in the next run, which starts one wider than that depth).
     */
    record Ended(int depth, boolean atBatchLimit) {
    }

    /**
     * @param depth   the most batches in flight to start with: {@code workers}, or what the run before learned of
     *                the same backlog
     * @param claim   claims the next batch in a transaction of its own (R4.1); a batch of size 0 when nothing is due
     * @param publish sends and confirms one claimed batch (R4.2: with no transaction and no lock held while sending)
     */
    Ended run(int depth, Supplier<B> claim, Consumer<B> publish) {
        BatchesInFlight inFlight = new BatchesInFlight(Math.max(1, Math.min(workers, depth)));
        boolean lastFull = false;
        try {
            for (int batch = 0; batch < maxBatches; batch++) {
                if (stopped.getAsBoolean()) {
                    return new Ended(workers, false);
                }
                long ticket = take(inFlight);
                int othersAtClaim = inFlight.others();
                int claimedSize = 0;
                boolean handedOver = false;
                try {
                    B claimed = claim.get();
                    claimedSize = size.applyAsInt(claimed);
                    // after a stop the transports may be closed: the claimed rows wait for their lease to run out
                    if (claimedSize > 0 && !stopped.getAsBoolean()) {
                        handedOver = true;
                        publishAndFinish(claimed, publish, inFlight);
                    }
                } finally {
                    if (!handedOver) {
                        inFlight.giveBackUnused(); // also when the claim threw: the slot is never lost
                    }
                }
                if (stopped.getAsBoolean()) {
                    return new Ended(workers, false);
                }
                lastFull = claimedSize >= batchSize;
                if (!lastFull) {
                    if (othersAtClaim == 0) {
                        return new Ended(workers, false);
                    }
                    // The backlog is held by the aggregates of the batches already out: one more in flight would
                    // only walk their waiting versions, so the rest of this run keeps to as many as were out.
                    inFlight.narrowTo(othersAtClaim);
                    while (!inFlight.awaitFinishedAfter(ticket, STEAL_AFTER_MS)) {
                        runUnstarted();
                    }
                }
            }
            return new Ended(inFlight.slots(), lastFull);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new Ended(workers, false);
        } finally {
            awaitNone(inFlight);
        }
    }

    private long take(BatchesInFlight inFlight) throws InterruptedException {
        long ticket;
        while ((ticket = inFlight.take(STEAL_AFTER_MS)) < 0) {
            runUnstarted();
        }
        return ticket;
    }

    /** Until every batch of the run is confirmed, running any no managed thread started; an interrupt ends the wait. */
    private void awaitNone(BatchesInFlight inFlight) {
        try {
            while (!inFlight.awaitNone(STEAL_AFTER_MS)) {
                runUnstarted();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt(); // stopping: a batch still out ends when its lease does (R4.3)
        }
    }

    private void publishAndFinish(B claimed, Consumer<B> publish, BatchesInFlight inFlight) {
        Runnable publishThenFree = () -> {
            try {
                // a batch not started before the stop is not sent: the transports may be closed (its lease runs out)
                if (!stopped.getAsBoolean()) {
                    publish.accept(claimed);
                }
            } finally {
                inFlight.finish();
            }
        };
        if (workers == 1) {
            publishThenFree.run();
            return;
        }
        Handoff handoff = new Handoff(publishThenFree);
        handedOff.removeIf(Handoff::started); // so the run holds no batch it has handed over and seen started
        handedOff.add(handoff);
        try {
            executor.execute(() -> runReporting(handoff));
        } catch (RuntimeException refused) {
            runReporting(handoff); // no managed thread for it: this one sends it, and claims after
        }
    }

    /** Runs, on the claiming thread, every batch handed over at least {@link #STEAL_AFTER_MS} ago and not started. */
    private void runUnstarted() {
        long now = System.nanoTime();
        for (Handoff handoff : handedOff) {
            if (handoff.started()) {
                handedOff.remove(handoff);
            } else if (now - handoff.handedAt >= STEAL_AFTER_MS * 1_000_000) {
                handedOff.remove(handoff);
                runReporting(handoff);
            }
        }
    }

    /** Runs a handed-over batch; its failure, an Error too, is reported: its slot is already free, its leases expire. */
    private void runReporting(Handoff handoff) {
        try {
            handoff.run();
        } catch (Throwable e) {
            batchFailed.accept(e);
        }
    }

    /** A batch handed to a managed thread: whichever of that thread and the claimer starts it first runs it. */
    private static final class Handoff implements Runnable {
        private Runnable batch;
        private final AtomicBoolean started = new AtomicBoolean();
        private final long handedAt = System.nanoTime();

        Handoff(Runnable batch) {
            this.batch = batch;
        }

        @Override
        public void run() {
            if (started.compareAndSet(false, true)) {
                Runnable once = batch;
                batch = null; // its events are not kept once it has run
                once.run();
            }
        }

        boolean started() {
            return started.get();
        }
    }
}
