package dev.outbox.internal.inbox;

import dev.outbox.Inbox;
import dev.outbox.internal.logging.CoreMessages;
import dev.outbox.internal.persistence.OutboxTransactions;
import dev.outbox.internal.trace.Tracing;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.transaction.Status;
import jakarta.transaction.Synchronization;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.LongFunction;
import java.util.function.Supplier;
import java.util.logging.Logger;

/**
 * One attempt of one event through the inbox, the template every consumer shares (the MDB interceptor,
 * KafkaInbox, ReactiveInbox), or of a batch of events in one transaction (KafkaInbox, {@link #attemptTogether}):
 * the mark and the business change in one new local transaction (R5.1, R5.3); a duplicate is absorbed without
 * running the change; a strict event whose earlier versions are missing is stored, committed, and applied in its
 * turn ({@link Resequencer}, R5.7). Whatever the receipt, once this returns the message may be acknowledged (R5.5);
 * when it throws, the consumer retries: an MDB fails the delivery so the broker redelivers it, a Kafka consumer
 * retries the record in place and parks it after its attempts.
 */
@ApplicationScoped
public class InboxAttempt {

    private static final Logger LOG = Logger.getLogger(InboxAttempt.class.getName());
    /** How often a consumer looks for waiting events whose turn came without a delivery (a skip, a failure). */
    static final long RELEASE_SWEEP_NANOS = TimeUnit.SECONDS.toNanos(5);
    private static final int RELEASE_SWEEP_AGGREGATES = 20;

    @Inject
    ConsumerInbox inbox;

    @Inject
    InboxTransaction transaction;

    @Inject
    Tracing tracing;

    @Inject
    OutboxTransactions transactions;

    final Map<String, Long> lastSweep = new ConcurrentHashMap<>();

    /**
     * One received event through the inbox in a new transaction of its own.
     *
     * @param change the consumer's change, for this event and for any that waited for it (R5.7)
     * @return FIRST (the change ran and committed with the mark), DUPLICATE (absorbed: nothing ran), WAITING (stored
     *         and committed: acknowledge it), CONFLICT (a fork, parked and committed) or SKIPPED
     * @throws Exception whatever this event's own change threw, after the rollback
     */
    public Inbox.Receipt attempt(String consumer, Received received, Resequencer.Change change) throws Exception {
        releaseDue(consumer, change);
        // R6.7: the consumer's span is the recording span's child, current while the mark and the change run.
        try (Tracing.Step span = tracing.consuming(consumer, received.event())) {
            try {
                Inbox.Receipt receipt = attemptOnce(consumer, received, change);
                span.outcome(receipt.name());
                return receipt;
            } catch (Exception | Error e) {
                span.failed(e);
                throw e;
            }
        }
    }

    private Inbox.Receipt attemptOnce(String consumer, Received received, Resequencer.Change change)
            throws Exception {
        Resequencer.Result result;
        try {
            result = releasingAroundFailures(consumer, releaseBelow -> receiveIn(consumer, received, change,
                    releaseBelow));
        } catch (CheckedFailure failure) {
            throw (Exception) failure.getCause();
        } catch (ChangeError failure) {
            throw (Error) failure.getCause();
        }
        if (result.receipt() == Inbox.Receipt.DUPLICATE) {
            logDuplicate(consumer, received);
        }
        return result.receipt();
    }

    /**
     * One event's part of an inbox transaction; a change that leaves the transaction rollback-only is named here,
     * before anything else runs on the doomed transaction: a waiting event's change so as a failure of that event
     * ({@link Resequencer.SuccessorFailed}), never of the one it waited for.
     */
    private Resequencer.Result receiveIn(String consumer, Received received, Resequencer.Change change,
                                         long releaseBelow) {
        Resequencer.Result result;
        try {
            result = inbox.receive(consumer, received, inTurn(received, change), releaseBelow);
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Exception e) {
            throw new CheckedFailure(e);
        }
        if (transactions.registry().getRollbackOnly()) {
            throw new IllegalStateException("the change of " + received.event().describe()
                    + " left the inbox transaction rollback-only");
        }
        return result;
    }

    /** The change, with a check after each waiting event's part that it left the transaction usable. */
    private Resequencer.Change inTurn(Received received, Resequencer.Change change) {
        return turn -> {
            change.apply(turn);
            if (turn != received && transactions.registry().getRollbackOnly()) {
                throw new IllegalStateException("the change of " + turn.event().describe()
                        + " left the inbox transaction rollback-only");
            }
        };
    }

    /**
     * Now and then (every {@link #RELEASE_SWEEP_NANOS} per consumer, or at once after a capped release), before a
     * delivery or on a quiet poll: applies the waiting events whose turn came with no delivery to bring them (an
     * operator's skip, a successor's failure, a long release). One transaction per aggregate; a failure is recorded
     * on the waiting event and never fails the delivery that swept.
     */
    public void releaseDue(String consumer, Resequencer.Change change) {
        if (sweptRecently(consumer)) {
            return;
        }
        lastSweep.put(consumer, System.nanoTime());
        skipAdvisoryGaps(consumer);
        for (String[] aggregate : ready(consumer, RELEASE_SWEEP_AGGREGATES)) {
            release(consumer, aggregate[0], aggregate[1], change);
        }
    }

    /** The sweep of {@link #releaseDue} at once, whenever the last one ran: a consumer asked to release (a nudge). */
    public void releaseNow(String consumer, Resequencer.Change change) {
        lastSweep.remove(consumer);
        releaseDue(consumer, change);
    }

    /**
     * Whether a consumer that cannot sweep by itself (an MDB between messages) should be asked to: no delivery swept
     * for {@link #RELEASE_SWEEP_NANOS} and an aggregate's waiting events can go on (R5.7: after a skip or a failure,
     * the versions that waited must not wait for the consumer's next message).
     */
    public boolean releaseWanted(String consumer) {
        if (sweptRecently(consumer)) {
            return false;
        }
        skipAdvisoryGaps(consumer);
        return !ready(consumer, 1).isEmpty();
    }

    /** R5.7's per-type opt-out ({@code outbox.inbox.advisory-order}), in a transaction of its own before a sweep. */
    private void skipAdvisoryGaps(String consumer) {
        if (!inbox.hasAdvisoryOrder()) {
            return; // the default: no transaction for it
        }
        try {
            inOneTransaction(() -> {
                try {
                    inbox.skipAdvisoryGaps(consumer, RELEASE_SWEEP_AGGREGATES);
                    return null;
                } catch (java.sql.SQLException e) {
                    throw new IllegalStateException("advisory gaps of consumer " + consumer + " failed", e);
                }
            });
        } catch (RuntimeException notNow) {
            CoreMessages.ADVISORY_SKIP_DEFERRED.log(LOG,
                    () -> "consumer " + consumer + ": advisory gaps not skipped now (" + notNow.getClass().getName()
                    + "); the next sweep tries again");
        }
    }

    /** When the consumer last swept (System.nanoTime), or null if it never did since start. */
    public Long lastSweep(String consumer) {
        return lastSweep.get(consumer);
    }

    private boolean sweptRecently(String consumer) {
        Long last = lastSweep.get(consumer);
        return last != null && System.nanoTime() - last < RELEASE_SWEEP_NANOS;
    }

    /** The aggregates whose waiting events can go on; none when the database cannot say now (the next sweep asks). */
    private List<String[]> ready(String consumer, int limit) {
        try {
            return inOneTransaction(() -> {
                try {
                    return inbox.ready(consumer, limit);
                } catch (java.sql.SQLException e) {
                    throw new IllegalStateException("inbox release sweep of consumer " + consumer + " failed", e);
                }
            });
        } catch (RuntimeException notNow) {
            LOG.fine(() -> "consumer " + consumer + ": release sweep failed (" + notNow + "); next time");
            return List.of();
        }
    }

    private void release(String consumer, String aggregateType, String aggregateId, Resequencer.Change change) {
        Received none = null; // every event a sweep applies waited: each is checked after its change
        try {
            releasingAroundFailures(consumer, releaseBelow -> releaseIn(consumer, aggregateType, aggregateId,
                    inTurn(none, change), releaseBelow));
        } catch (RuntimeException notNow) {
            CoreMessages.RELEASE_FAILED.log(LOG,
                    () -> "consumer " + consumer + ": the release of " + aggregateType + "/" + aggregateId
                    + " failed (" + notNow.getClass().getName() + "); the sweep tries again");
        }
    }

    /**
     * R5.7: a release (a delivery's or a sweep's) in one transaction. When a waiting event fails in its turn, the
     * release runs again in a new transaction without it, applying only the versions below it, and the failure is
     * recorded on it: it stays waiting, reported, for the sweep, and never blocks the versions before it. A cap that
     * stopped the release makes the next sweep due at once.
     */
    private Resequencer.Result releasingAroundFailures(String consumer, LongFunction<Resequencer.Result> releasingBelow) {
        Resequencer.Result result;
        try {
            result = inOneTransaction(() -> releasingBelow.apply(Resequencer.RELEASE_ALL));
        } catch (Resequencer.SuccessorFailed failed) {
            CoreMessages.SUCCESSOR_FAILED.log(LOG, () -> "consumer " + consumer + ": " + failed.getMessage() + " ("
                    + failed.getCause().getClass().getName() + "); the versions before it go on without it, which"
                    + " stays waiting");
            result = inOneTransaction(() -> {
                Resequencer.Result before = releasingBelow.apply(failed.successor().event().aggregateVersion());
                recordFailure(consumer, failed);
                return before;
            });
        }
        if (result.more()) {
            lastSweep.remove(consumer); // the cap stopped a long release: the next delivery sweeps the rest
        }
        return result;
    }

    private Resequencer.Result releaseIn(String consumer, String aggregateType, String aggregateId,
                                         Resequencer.Change change, long releaseBelow) {
        try {
            Resequencer.Result result = inbox.releaseReady(consumer, aggregateType, aggregateId, change, releaseBelow);
            if (transactions.registry().getRollbackOnly()) {
                throw new IllegalStateException("a release left the inbox transaction rollback-only");
            }
            return result;
        } catch (java.sql.SQLException e) {
            throw new IllegalStateException("inbox release of consumer " + consumer + " failed", e);
        }
    }

    private void recordFailure(String consumer, Resequencer.SuccessorFailed failed) {
        try {
            inbox.successorFailed(consumer, failed.successor(), failed.getCause());
        } catch (java.sql.SQLException e) {
            throw new IllegalStateException("cannot record the failure of " + failed.successor().event().describe(), e);
        }
    }

    private static void logDuplicate(String consumer, Received received) {
        CoreMessages.DUPLICATE_ABSORBED.log(LOG,
                () -> "consumer " + consumer + " absorbed duplicate " + received.event().describe() + ", broker id "
                + received.brokerId());
    }

    /** One event of a batch and the consumer's change for it. */
    public record Delivery(Received received, Resequencer.Change change) {
    }

    /**
     * Several events through the inbox in one transaction, in order, all committed together (R5.1, R5.3 for each),
     * so a consumer pays one commit for many events. A duplicate within the batch is absorbed by the mark its first
     * delivery wrote; an early strict event waits, stored by this transaction. When any change or statement fails
     * (a waiting successor's included), the whole transaction rolls back and nothing of the batch is marked or
     * changed: the caller then delivers the events one at a time ({@link #attempt}), which retries and parks each
     * alone.
     *
     * @return the receipts in the batch's order, or empty when the batch rolled back
     */
    public Optional<List<Inbox.Receipt>> attemptTogether(String consumer, List<Delivery> batch) {
        releaseDue(consumer, batch.get(0).change());
        // R6.7: a span per event, as one at a time; each is current while its own mark and change run, and all end
        // after the commit (last opened, first closed), with the receipt or the batch's rollback as their outcome.
        Deque<Tracing.Step> spans = new ArrayDeque<>(batch.size());
        List<Inbox.Receipt> receipts = new ArrayList<>(batch.size());
        boolean[] more = {false};
        boolean committed = false;
        try {
            inOneTransaction(() -> {
                for (Delivery delivery : batch) {
                    spans.push(tracing.consuming(consumer, delivery.received().event()));
                    Resequencer.Result result = receiveIn(consumer, delivery.received(), delivery.change(),
                            Resequencer.RELEASE_ALL);
                    more[0] |= result.more();
                    receipts.add(result.receipt());
                }
                return null;
            });
            committed = true;
        } catch (VirtualMachineError fatal) {
            throw fatal;
        } catch (Throwable e) {
            // Whatever the transaction threw, an Error from a change or a checked exception from a commit included:
            // nothing committed, and each event goes again on its own, where a failing one is retried and parked.
            Throwable cause = e instanceof CheckedFailure || e instanceof ChangeError ? e.getCause() : e;
            if (receipts.size() < spans.size()) {
                spans.peek().failed(cause); // the newest event's mark or change threw, not the commit
            }
            CoreMessages.BATCH_ROLLED_BACK.log(LOG, () -> "consumer " + consumer + ": a batch of " + batch.size() + " ("
                    + batch.get(0).received().brokerId() + " to " + batch.get(batch.size() - 1).received().brokerId()
                    + ") rolled back (" + cause.getClass().getName() + "); its events go again one at a time");
        } finally {
            int i = spans.size();
            for (Tracing.Step span : spans) { // newest first: each span's scope closes before the one it nests in
                i--;
                if (committed) {
                    span.outcome(receipts.get(i).name());
                } else if (i < receipts.size()) {
                    span.outcome("ROLLED_BACK");
                }
                span.close();
            }
        }
        if (!committed) {
            return Optional.empty();
        }
        if (more[0]) {
            lastSweep.remove(consumer);
        }
        for (int i = 0; i < batch.size(); i++) {
            if (receipts.get(i) == Inbox.Receipt.DUPLICATE) {
                logDuplicate(consumer, batch.get(i).received());
            }
        }
        return Optional.of(List.copyOf(receipts));
    }

    /**
     * Runs {@code work} in the inbox's own new transaction and returns only if that transaction committed. A change
     * that swallowed a failure after its transaction was marked rollback-only, or a transaction that timed out,
     * ends in a rollback some servers report by returning normally: that must not pass for a commit, or the message
     * would be acknowledged with nothing applied (R5.3, R5.5).
     */
    private <T> T inOneTransaction(Supplier<T> work) {
        Completion completion = new Completion();
        T result = transaction.run(() -> {
            transactions.registry().registerInterposedSynchronization(completion);
            T done;
            try {
                done = work.get();
            } catch (Error e) {
                // @Transactional rolls back on a RuntimeException; an Error is carried out in one so it does on
                // every server, wherever it came from (the change, the mark, a tracer) (R5.3).
                throw new ChangeError(e);
            }
            if (transactions.registry().getRollbackOnly()) {
                throw new IllegalStateException("the inbox transaction was marked rollback-only by the change");
            }
            return done;
        });
        if (completion.status != Status.STATUS_COMMITTED) {
            throw new IllegalStateException("the inbox transaction ended without a commit (JTA status "
                    + completion.status + ")");
        }
        return result;
    }

    /** What the transaction came to, from its interposed synchronization. */
    private static final class Completion implements Synchronization {
        volatile int status = Status.STATUS_UNKNOWN;

        @Override
        public void beforeCompletion() {
        }

        @Override
        public void afterCompletion(int status) {
            this.status = status;
        }
    }

    /** Carries an Error out of the transaction, which it rolls back. */
    private static final class ChangeError extends RuntimeException {
        ChangeError(Error cause) {
            super(cause);
        }
    }

    /** Carries a checked exception of the business change out of the transaction, which it rolls back. */
    private static final class CheckedFailure extends RuntimeException {
        CheckedFailure(Exception cause) {
            super(cause);
        }
    }
}
