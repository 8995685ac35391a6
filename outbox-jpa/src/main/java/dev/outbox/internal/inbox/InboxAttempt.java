package dev.outbox.internal.inbox;

import dev.outbox.Inbox;
import dev.outbox.InboxedEvent;
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
import java.util.Optional;
import java.util.function.Supplier;
import java.util.logging.Logger;

/**
 * One attempt of one event through the inbox, the template every consumer shares (the MDB interceptor,
 * KafkaInbox, ReactiveInbox), or of a batch of events in one transaction (KafkaInbox, {@link #attemptTogether}):
 * the mark and the business change in one new local transaction (R5.1, R5.3); a duplicate is absorbed without
 * running the change; an event held for its earlier versions (R5.7) rolls the transaction back. What happens next
 * is the consumer's: an MDB fails the delivery so the broker redelivers it, a Kafka consumer retries the record in
 * place. Only after this returns may the message be acknowledged (R5.5).
 */
@ApplicationScoped
public class InboxAttempt {

    private static final Logger LOG = Logger.getLogger(InboxAttempt.class.getName());

    @Inject
    Inbox inbox;

    @Inject
    InboxTransaction transaction;

    @Inject
    Tracing tracing;

    @Inject
    OutboxTransactions transactions;

    /** The consumer's business change; a checked exception rolls the transaction back and is rethrown as is. */
    @FunctionalInterface
    public interface Change {
        void apply() throws Exception;
    }

    /**
     * @param brokerId the message's id at the broker (JMS message id, Kafka topic-partition@offset), for the log
     * @return FIRST (the change ran and committed with the mark), DUPLICATE (absorbed: nothing ran) or HELD
     *         (rolled back: nothing is marked, the caller must let the event come again)
     * @throws Exception whatever the change threw, after the rollback
     */
    public Inbox.Receipt attempt(String consumer, InboxedEvent event, String brokerId, Change change)
            throws Exception {
        // R6.7: the consumer's span is the recording span's child, current while the mark and the change run.
        try (Tracing.Step span = tracing.consuming(consumer, event)) {
            try {
                Inbox.Receipt receipt = attemptOnce(consumer, event, brokerId, change);
                span.outcome(receipt.name());
                return receipt;
            } catch (Exception | Error e) {
                span.failed(e);
                throw e;
            }
        }
    }

    private Inbox.Receipt attemptOnce(String consumer, InboxedEvent event, String brokerId, Change change)
            throws Exception {
        Inbox.Receipt receipt;
        try {
            receipt = inOneTransaction(() -> markAndApply(consumer, event, change));
        } catch (Held held) {
            return Inbox.Receipt.HELD;
        } catch (CheckedFailure failure) {
            throw (Exception) failure.getCause();
        } catch (ChangeError failure) {
            throw (Error) failure.getCause();
        }
        if (receipt == Inbox.Receipt.DUPLICATE) {
            logDuplicate(consumer, event, brokerId);
        }
        return receipt;
    }

    /**
     * One event's part of an inbox transaction: its mark, then its change when the mark was the first. A held event
     * throws, so the transaction rolls back (R5.7); a change that leaves the transaction rollback-only is named here,
     * before anything else runs on the doomed transaction.
     */
    private Inbox.Receipt markAndApply(String consumer, InboxedEvent event, Change change) {
        Inbox.Receipt decided = inbox.receive(consumer, event.eventId(), event.aggregateType(), event.aggregateId(),
                event.aggregateVersion(), event.ordering());
        if (decided == Inbox.Receipt.HELD) {
            throw new Held();
        }
        if (decided == Inbox.Receipt.FIRST) {
            apply(change);
            if (transactions.registry().getRollbackOnly()) {
                throw new IllegalStateException("the change of " + event.describe()
                        + " left the inbox transaction rollback-only");
            }
        }
        return decided;
    }

    private static void logDuplicate(String consumer, InboxedEvent event, String brokerId) {
        LOG.info(() -> "consumer " + consumer + " absorbed duplicate " + event.describe() + ", broker id " + brokerId);
    }

    /** One event of a batch: the event, its id at the broker (for the log), the consumer's change for it. */
    public record Delivery(InboxedEvent event, String brokerId, Change change) {
    }

    /**
     * Several events through the inbox in one transaction, in order: each marked and, when first, changed, all
     * committed together (R5.1, R5.3 for each), so a consumer pays one commit for many events. A duplicate within
     * the batch is absorbed by the mark its first delivery wrote. When any event is held (R5.7) or any change or
     * statement fails, the whole transaction rolls back and nothing of the batch is marked or changed: the caller
     * then delivers the events one at a time ({@link #attempt}), which holds, retries and parks each alone.
     *
     * @return the receipts in the batch's order (FIRST, DUPLICATE or STALE), or empty when the batch rolled back
     */
    public Optional<List<Inbox.Receipt>> attemptTogether(String consumer, List<Delivery> batch) {
        // R6.7: a span per event, as one at a time; each is current while its own mark and change run, and all end
        // after the commit (last opened, first closed), with the receipt or the batch's rollback as their outcome.
        Deque<Tracing.Step> spans = new ArrayDeque<>(batch.size());
        List<Inbox.Receipt> receipts = new ArrayList<>(batch.size());
        boolean committed = false;
        try {
            inOneTransaction(() -> {
                for (Delivery delivery : batch) {
                    spans.push(tracing.consuming(consumer, delivery.event()));
                    receipts.add(markAndApply(consumer, delivery.event(), delivery.change()));
                }
                return null;
            });
            committed = true;
        } catch (ChangeError failure) {
            throw (Error) failure.getCause(); // spans end in finally; the caller's thread decides what an Error means
        } catch (Held held) {
            // The held event's span is the newest; the others were rolled back with it.
            spans.peek().outcome(Inbox.Receipt.HELD.name());
            LOG.fine(() -> "consumer " + consumer + ": an event of a batch of " + batch.size() + " is held for its"
                    + " earlier versions; the batch rolled back and goes again one event at a time");
        } catch (Exception e) {
            // Whatever the transaction threw, a checked exception from a commit included: nothing committed.
            Throwable cause = e instanceof CheckedFailure ? e.getCause() : e;
            if (receipts.size() < spans.size()) {
                spans.peek().failed(cause); // the newest event's mark or change threw, not the commit
            }
            LOG.info(() -> "consumer " + consumer + ": a batch of " + batch.size() + " (" + batch.get(0).brokerId()
                    + " to " + batch.get(batch.size() - 1).brokerId() + ") rolled back (" + cause.getClass().getName()
                    + "); its events go again one at a time");
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
        for (int i = 0; i < batch.size(); i++) {
            if (receipts.get(i) == Inbox.Receipt.DUPLICATE) {
                logDuplicate(consumer, batch.get(i).event(), batch.get(i).brokerId());
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

    /** Runs a change inside the transaction; anything it throws rolls the transaction back (an Error: see above). */
    private static void apply(Change change) {
        try {
            change.apply();
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Exception e) {
            throw new CheckedFailure(e);
        }
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

    /** Thrown inside the transaction so the held mark rolls back (R5.7). */
    private static final class Held extends RuntimeException {
        Held() {
            super(null, null, false, false);
        }
    }

    /** Carries a checked exception of the business change out of the transaction, which it rolls back. */
    private static final class CheckedFailure extends RuntimeException {
        CheckedFailure(Exception cause) {
            super(cause);
        }
    }
}
