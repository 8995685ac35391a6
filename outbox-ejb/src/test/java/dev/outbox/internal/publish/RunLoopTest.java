package dev.outbox.internal.publish;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * One publisher run's loop (issue 44): one claimer, up to {@code workers} batches between claim and confirm, when it
 * claims again and when it ends. A batch here is only its size; the claims are scripted, the sends are real threads.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class RunLoopTest {

    private static final int BATCH = 500;
    private final ExecutorService threads = Executors.newCachedThreadPool();
    private final List<Throwable> failedOnThreads = Collections.synchronizedList(new ArrayList<>());
    /** Batches claimed and not yet published, and the most there were at once. */
    private final AtomicInteger inFlight = new AtomicInteger();
    private final AtomicInteger mostInFlight = new AtomicInteger();
    private final List<String> story = Collections.synchronizedList(new ArrayList<>());

    @AfterEach
    void stopThreads() {
        threads.shutdownNow();
    }

    private RunLoop<Integer> loop(int workers) {
        return new RunLoop<>(workers, BATCH, 100, threads, () -> false, size -> size, failedOnThreads::add);
    }

    /** Claims the scripted sizes in order, then nothing; counts each non-empty claim as in flight. */
    private Supplier<Integer> claims(Integer... sizes) {
        Deque<Integer> script = new ArrayDeque<>(List.of(sizes));
        AtomicInteger n = new AtomicInteger();
        return () -> {
            int size = script.isEmpty() ? 0 : script.poll();
            story.add("claim " + n.incrementAndGet() + " (" + size + ", " + inFlight.get() + " out)");
            if (size > 0) {
                mostInFlight.accumulateAndGet(inFlight.incrementAndGet(), Math::max);
            }
            return size;
        };
    }

    private void published(int size) {
        story.add("published " + size);
        inFlight.decrementAndGet();
    }

    @Test
    void withOneWorkerEachBatchIsPublishedOnTheClaimingThreadAndTheRunEndsAtItsFirstShortClaim() {
        Thread claimer = Thread.currentThread();
        List<Thread> publishers = Collections.synchronizedList(new ArrayList<>());
        loop(1).run(Integer.MAX_VALUE, claims(BATCH, BATCH, 200, BATCH), size -> {
            publishers.add(Thread.currentThread());
            published(size);
        });
        assertEquals(List.of("claim 1 (500, 0 out)", "published 500", "claim 2 (500, 0 out)", "published 500",
                "claim 3 (200, 0 out)", "published 200"), story, "one batch at a time; the short third ends the run");
        assertTrue(publishers.stream().allMatch(t -> t == claimer), "every batch published on the claiming thread");
    }

    @Test
    void withTwoWorkersTheNextBatchIsClaimedWhileTheFirstIsBeingSent() {
        CountDownLatch secondClaimed = new CountDownLatch(1);
        Supplier<Integer> scripted = claims(BATCH, BATCH);
        AtomicInteger claimsMade = new AtomicInteger();
        Supplier<Integer> claim = () -> {
            int size = scripted.get();
            if (claimsMade.incrementAndGet() == 2) {
                secondClaimed.countDown();
            }
            return size;
        };
        List<Boolean> firstWaitedForSecondClaim = Collections.synchronizedList(new ArrayList<>());
        loop(2).run(Integer.MAX_VALUE, claim, size -> {
            try {
                firstWaitedForSecondClaim.add(secondClaimed.await(10, TimeUnit.SECONDS));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            published(size);
        });
        assertEquals(Boolean.TRUE, firstWaitedForSecondClaim.get(0),
                "the second claim was made while the first batch was still being sent: " + story);
        assertEquals(2, mostInFlight.get(), "two batches between claim and confirm at once: " + story);
    }

    @Test
    void neverMoreBatchesInFlightThanWorkers() {
        CountDownLatch threeOut = new CountDownLatch(1);
        Supplier<Integer> scripted = claims(BATCH, BATCH, BATCH, BATCH, BATCH, BATCH, BATCH, BATCH, BATCH, BATCH);
        Supplier<Integer> claim = () -> {
            Integer size = scripted.get();
            if (inFlight.get() == 3) {
                threeOut.countDown();
            }
            return size;
        };
        loop(3).run(Integer.MAX_VALUE, claim, size -> {
            await(threeOut); // no batch finishes before three are out, however slow the machine
            pause(5);
            published(size);
        });
        assertEquals(3, mostInFlight.get(), "at most 3 batches out with 3 workers, and 3 reached: " + story);
        assertEquals(10, story.stream().filter(s -> s.startsWith("published")).count(), "every batch published");
    }

    @Test
    void aShortClaimBesideABatchInFlightClaimsAgainOnceThatBatchIsConfirmed() {
        CountDownLatch release = new CountDownLatch(1);
        Supplier<Integer> scripted = claims(BATCH, 0, BATCH);
        AtomicInteger claimsMade = new AtomicInteger();
        Supplier<Integer> claim = () -> {
            if (claimsMade.incrementAndGet() == 3) {
                assertEquals(0, inFlight.get(), "the third claim waited for the first batch: " + story);
            }
            Integer size = scripted.get();
            if (claimsMade.get() == 2) {
                release.countDown(); // the empty claim was made beside batch 1; let it finish now
            }
            return size;
        };
        loop(2).run(Integer.MAX_VALUE, claim, size -> {
            await(release);
            pause(50); // the loop must wait this out, not claim again at once
            published(size);
        });
        assertEquals(List.of("claim 1 (500, 0 out)", "claim 2 (0, 1 out)", "published 500", "claim 3 (500, 0 out)",
                "published 500", "claim 4 (0, 0 out)"), story,
                "an empty claim beside a batch in flight is not the end: the run claims again after that batch");
    }

    @Test
    void aShortClaimBesideBatchesInFlightKeepsTheRestOfTheRunToThatMany() {
        AtomicInteger claimsMade = new AtomicInteger();
        CountDownLatch emptyClaimMade = new CountDownLatch(1);
        Supplier<Integer> scripted = claims(BATCH, BATCH, 0, BATCH, BATCH, BATCH, BATCH, BATCH, BATCH);
        List<Integer> outAtLaterClaims = Collections.synchronizedList(new ArrayList<>());
        Supplier<Integer> claim = () -> {
            if (claimsMade.incrementAndGet() > 3) {
                outAtLaterClaims.add(inFlight.get());
            }
            Integer size = scripted.get();
            if (claimsMade.get() == 3) {
                emptyClaimMade.countDown();
            }
            return size;
        };
        loop(4).run(Integer.MAX_VALUE, claim, size -> {
            await(emptyClaimMade); // the empty claim is made beside the first two, however slow the machine
            pause(5);
            published(size);
        });
        assertTrue(!outAtLaterClaims.isEmpty() && outAtLaterClaims.stream().allMatch(out -> out <= 1),
                "after an empty claim beside 2 batches, a claim is made with at most 1 other out (2 in flight): "
                + outAtLaterClaims + " " + story);
        assertEquals(8, story.stream().filter(s -> s.startsWith("published")).count(), "every batch published");
    }

    @Test
    void theRunReturnsOnlyWhenEveryBatchItClaimedIsConfirmed() {
        loop(2).run(Integer.MAX_VALUE, claims(300), size -> {
            pause(200);
            published(size);
        });
        assertEquals(List.of("claim 1 (300, 0 out)", "published 300"), story,
                "a short claim ends the run, after its batch is published on another thread");
    }

    @Test
    void aFailedClaimEndsTheRunOnceTheBatchesAlreadyOutAreConfirmed() {
        Supplier<Integer> scripted = claims(BATCH);
        AtomicInteger claimsMade = new AtomicInteger();
        IllegalStateException down = new IllegalStateException("database down");
        Supplier<Integer> claim = () -> {
            if (claimsMade.incrementAndGet() == 2) {
                throw down;
            }
            return scripted.get();
        };
        IllegalStateException thrown = assertThrows(IllegalStateException.class, () -> loop(2).run(Integer.MAX_VALUE, claim, size -> {
            pause(100);
            published(size);
        }));
        assertSame(down, thrown, "the claim's failure is the run's");
        assertEquals(0, inFlight.get(), "the batch already out was published before the run ended: " + story);
    }

    @Test
    void aBatchThatFailsOnAnotherThreadIsReportedAndTheRunGoesOn() {
        IllegalStateException broker = new IllegalStateException("confirm failed");
        AtomicInteger published = new AtomicInteger();
        loop(2).run(Integer.MAX_VALUE, claims(BATCH, BATCH, BATCH), size -> {
            inFlight.decrementAndGet();
            if (published.incrementAndGet() == 1) {
                throw broker;
            }
        });
        assertEquals(List.of(broker), failedOnThreads, "the failed batch was reported");
        assertEquals(3, published.get(), "the batches after it were still published");
    }

    @Test
    void aRefusedExecutorLeavesTheBatchToTheClaimingThread() {
        Thread claimer = Thread.currentThread();
        List<Thread> publishers = Collections.synchronizedList(new ArrayList<>());
        RunLoop<Integer> refused = new RunLoop<>(2, BATCH, 100, task -> {
            throw new RejectedExecutionException("no managed thread free");
        }, () -> false, size -> size, failedOnThreads::add);
        refused.run(Integer.MAX_VALUE, claims(BATCH, BATCH), size -> {
            publishers.add(Thread.currentThread());
            published(size);
        });
        assertEquals(2, publishers.size(), "both batches published: " + story);
        assertTrue(publishers.stream().allMatch(t -> t == claimer), "on the claiming thread");
        assertEquals(List.of(), failedOnThreads, "nothing failed");
    }

    @Test
    void aBatchNoManagedThreadStartsIsPublishedByTheClaimer() {
        Thread claimer = Thread.currentThread();
        List<Runnable> dropped = Collections.synchronizedList(new ArrayList<>());
        List<Thread> publishers = Collections.synchronizedList(new ArrayList<>());
        // accepted and never run: a pool whose threads are all busy, or a task the container drops
        RunLoop<Integer> starved = new RunLoop<>(2, BATCH, 100, dropped::add, () -> false, size -> size,
                failedOnThreads::add);
        starved.run(Integer.MAX_VALUE, claims(BATCH, BATCH, BATCH), size -> {
            publishers.add(Thread.currentThread());
            published(size);
        });
        assertEquals(3, publishers.size(), "every batch published, none waited on for good: " + story);
        assertTrue(publishers.stream().allMatch(t -> t == claimer), "by the claimer, after its wait");
        dropped.forEach(Runnable::run); // a thread that comes late finds each batch taken
        assertEquals(3, story.stream().filter(s -> s.startsWith("published")).count(), "each batch published once");
    }

    @Test
    void aClaimThatThrowsAnErrorGivesItsSlotBackAndEndsTheRun() {
        NoClassDefFoundError undeployed = new NoClassDefFoundError("the application is going away");
        AtomicInteger claimsMade = new AtomicInteger();
        Supplier<Integer> scripted = claims(BATCH);
        NoClassDefFoundError thrown = assertThrows(NoClassDefFoundError.class, () -> loop(2).run(Integer.MAX_VALUE, () -> {
            if (claimsMade.incrementAndGet() == 2) {
                throw undeployed;
            }
            return scripted.get();
        }, size -> {
            pause(50);
            published(size);
        }));
        assertSame(undeployed, thrown);
        assertEquals(0, inFlight.get(), "the batch already out was published: " + story);
    }

    @Test
    void aBatchClaimedAfterTheStopIsNotSent() {
        java.util.concurrent.atomic.AtomicBoolean stopped = new java.util.concurrent.atomic.AtomicBoolean();
        RunLoop<Integer> stopping = new RunLoop<>(2, BATCH, 100, threads, stopped::get, size -> size,
                failedOnThreads::add);
        Supplier<Integer> scripted = claims(BATCH, BATCH);
        AtomicInteger claimsMade = new AtomicInteger();
        CountDownLatch firstSending = new CountDownLatch(1);
        stopping.run(Integer.MAX_VALUE, () -> {
            Integer size = scripted.get();
            if (claimsMade.incrementAndGet() == 2) {
                await(firstSending);
                stopped.set(true); // the application stops while the second claim runs
            }
            return size;
        }, size -> {
            firstSending.countDown();
            published(size);
        });
        assertEquals(1, story.stream().filter(s -> s.startsWith("published")).count(),
                "the batch being sent went out; the one claimed as the application stopped waits for its lease: "
                + story);
    }

    @Test
    void aRunCutAtItsBatchLimitHandsTheDepthItLearnedToTheNext() {
        CountDownLatch emptyClaimMade = new CountDownLatch(1);
        Supplier<Integer> scripted = claims(BATCH, BATCH, 0, BATCH, BATCH);
        AtomicInteger claimsMade = new AtomicInteger();
        RunLoop.Ended first = new RunLoop<Integer>(4, BATCH, 5, threads, () -> false, size -> size,
                failedOnThreads::add).run(4, () -> {
                    Integer size = scripted.get();
                    if (claimsMade.incrementAndGet() == 3) {
                        emptyClaimMade.countDown();
                    }
                    return size;
                }, size -> {
                    await(emptyClaimMade);
                    pause(5);
                    published(size);
                });
        assertEquals(new RunLoop.Ended(2, true), first, "cut at 5 claims, the last full, after an empty claim beside"
                + " 2 batches: " + story);
        mostInFlight.set(0);
        RunLoop.Ended next = new RunLoop<Integer>(4, BATCH, 5, threads, () -> false, size -> size,
                failedOnThreads::add).run(first.depth(), claims(BATCH, BATCH, BATCH, BATCH, BATCH), size -> {
                    pause(20);
                    published(size);
                });
        assertTrue(mostInFlight.get() <= 2, "the next run of the backlog started at the depth it was handed: "
                + mostInFlight.get() + " out at once");
        assertEquals(new RunLoop.Ended(2, true), next, "cut at its limit again, its last claim full");
        RunLoop.Ended drained = new RunLoop<Integer>(4, BATCH, 5, threads, () -> false, size -> size,
                failedOnThreads::add).run(next.depth(), claims(BATCH, 100), size -> {
                    pause(20);
                    published(size);
                });
        assertEquals(new RunLoop.Ended(4, false), drained, "a run that found the table drained starts the next afresh");
    }

    @Test
    void anErrorFromABatchTheClaimerTookOverIsReportedAndEveryBatchIsAccountedFor() {
        List<Runnable> dropped = Collections.synchronizedList(new ArrayList<>());
        NoClassDefFoundError gone = new NoClassDefFoundError("a transport class went away");
        AtomicInteger published = new AtomicInteger();
        new RunLoop<Integer>(2, BATCH, 100, dropped::add, () -> false, size -> size, failedOnThreads::add)
                .run(Integer.MAX_VALUE, claims(BATCH, BATCH), size -> {
                    inFlight.decrementAndGet();
                    if (published.incrementAndGet() == 1) {
                        throw gone;
                    }
                });
        assertEquals(List.of(gone), failedOnThreads, "the Error was reported, not lost or thrown past the run's wait");
        assertEquals(2, published.get(), "both batches ran");
    }

    @Test
    void aBatchHandedOverButNotStartedBeforeTheStopIsNotSent() {
        java.util.concurrent.atomic.AtomicBoolean stopped = new java.util.concurrent.atomic.AtomicBoolean();
        List<Runnable> queued = Collections.synchronizedList(new ArrayList<>());
        Supplier<Integer> scripted = claims(BATCH);
        new RunLoop<Integer>(2, BATCH, 100, task -> {
            queued.add(task);
            stopped.set(true); // the application stops before any managed thread starts the batch
        }, stopped::get, size -> size, failedOnThreads::add).run(Integer.MAX_VALUE, scripted, this::published);
        queued.forEach(Runnable::run);
        assertEquals(0, story.stream().filter(s -> s.startsWith("published")).count(),
                "a batch not started before the stop waits for its lease: " + story);
    }

    private static void pause(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static void await(CountDownLatch latch) {
        try {
            assertTrue(latch.await(10, TimeUnit.SECONDS), "the latch was released");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
