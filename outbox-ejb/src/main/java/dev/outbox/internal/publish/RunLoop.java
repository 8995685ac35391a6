package dev.outbox.internal.publish;

import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.Supplier;
import java.util.function.ToIntFunction;

/**
 * One publisher run (issue 44): the calling thread claims batch after batch, and up to {@code workers} of them are
 * between claim and confirm at once, each sent and confirmed on the executor while the next is claimed (on the
 * calling thread itself with one worker, as before, or when the executor refuses). One claimer is the point: each
 * claim takes the oldest due rows, so the only due rows it walks past are the versions waiting behind this run's own
 * batches in flight. Workers that each claimed for themselves drifted apart in version, and each claim walked the
 * other's waiting versions with a strict check for each (74,500 rows rejected for 500 kept): 2 of them drained at
 * 0.45 to 0.98 of one.
 *
 * <p>The run ends at its first short claim made with nothing else in flight (with one worker: its first short claim,
 * as before). A short claim made beside other batches may have found their aggregates' next versions waiting
 * (R4.6), so the run claims again once one of those has finished, and from then on keeps no more batches out than
 * were out beside it: with 4 workers on a backlog of 1,000 aggregates, every fourth claim found every aggregate in
 * flight, walked the whole backlog for nothing, and the drain ran at 0.30 of 2 workers. The run returns only when
 * every batch it claimed has been confirmed (or has failed).
 *
 * @param <B> a claimed batch
 */
final class RunLoop<B> {

    private final int workers;
    private final int batchSize;
    private final int maxBatches;
    private final Executor executor;
    private final BooleanSupplier stopped;
    private final ToIntFunction<B> size;
    private final Consumer<RuntimeException> batchFailed;

    /**
     * @param batchFailed told of a batch that failed after its claim on the executor (its leases expire); a failure
     *                    on the calling thread ends the run and is thrown instead
     */
    RunLoop(int workers, int batchSize, int maxBatches, Executor executor, BooleanSupplier stopped,
            ToIntFunction<B> size, Consumer<RuntimeException> batchFailed) {
        this.workers = workers;
        this.batchSize = batchSize;
        this.maxBatches = maxBatches;
        this.executor = executor;
        this.stopped = stopped;
        this.size = size;
        this.batchFailed = batchFailed;
    }

    /**
     * @param claim   claims the next batch in a transaction of its own (R4.1); a batch of size 0 when nothing is due
     * @param publish sends and confirms one claimed batch (R4.2: with no transaction and no lock held while sending)
     */
    void run(Supplier<B> claim, Consumer<B> publish) {
        BatchesInFlight inFlight = new BatchesInFlight(workers);
        try {
            for (int batch = 0; batch < maxBatches && !stopped.getAsBoolean(); batch++) {
                long ticket = inFlight.take();
                int othersAtClaim = inFlight.others();
                B claimed;
                try {
                    claimed = claim.get();
                } catch (RuntimeException e) {
                    inFlight.giveBackUnused();
                    throw e;
                }
                int claimedSize = size.applyAsInt(claimed);
                if (claimedSize == 0) {
                    inFlight.giveBackUnused();
                } else {
                    publishAndFinish(claimed, publish, inFlight);
                }
                if (claimedSize < batchSize) {
                    if (othersAtClaim == 0) {
                        return;
                    }
                    // The backlog is held by the aggregates of the batches already out: one more in flight would
                    // only walk their waiting versions, so the rest of this run keeps to as many as were out.
                    inFlight.narrowTo(othersAtClaim);
                    inFlight.awaitFinishedAfter(ticket);
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            inFlight.awaitNone();
        }
    }

    private void publishAndFinish(B claimed, Consumer<B> publish, BatchesInFlight inFlight) {
        Runnable publishThenFree = () -> {
            try {
                publish.accept(claimed);
            } finally {
                inFlight.finish();
            }
        };
        if (workers == 1) {
            publishThenFree.run();
            return;
        }
        try {
            executor.execute(() -> {
                try {
                    publishThenFree.run();
                } catch (RuntimeException e) {
                    batchFailed.accept(e);
                }
            });
        } catch (RejectedExecutionException e) {
            publishThenFree.run(); // no managed thread free: this one sends it, and claims after
        }
    }
}
