package dev.outbox.internal.inbox;

import dev.outbox.Inbox;
import dev.outbox.InboxedEvent;
import dev.outbox.internal.trace.Tracing;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;

import java.util.logging.Logger;

/**
 * One attempt of one event through the inbox, the template every consumer shares (the MDB interceptor,
 * KafkaInbox, ReactiveInbox): the mark and the business change in one new local transaction (R5.1, R5.3); a
 * duplicate is absorbed without running the change; an event held for its earlier versions (R5.7) rolls the
 * transaction back. What happens next is the consumer's: an MDB fails the delivery so the broker redelivers it, a
 * Kafka consumer retries the record in place. Only after this returns may the message be acknowledged (R5.5).
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
            receipt = transaction.run(() -> {
                Inbox.Receipt decided = inbox.receive(consumer, event.eventId(), event.aggregateType(),
                        event.aggregateId(), event.aggregateVersion(), event.ordering());
                if (decided == Inbox.Receipt.HELD) {
                    throw new Held();
                }
                if (decided == Inbox.Receipt.FIRST) {
                    try {
                        change.apply();
                    } catch (RuntimeException e) {
                        throw e;
                    } catch (Exception e) {
                        throw new CheckedFailure(e);
                    }
                }
                return decided;
            });
        } catch (Held held) {
            return Inbox.Receipt.HELD;
        } catch (CheckedFailure failure) {
            throw (Exception) failure.getCause();
        }
        if (receipt == Inbox.Receipt.DUPLICATE) {
            LOG.info(() -> "consumer " + consumer + " absorbed duplicate " + event.describe() + ", broker id "
                    + brokerId);
        }
        return receipt;
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
