package dev.outbox.internal.inbox;

import dev.outbox.EventId;
import dev.outbox.Inbox;
import dev.outbox.InboxedEvent;
import dev.outbox.Ordering;
import dev.outbox.internal.persistence.FakeTransaction;
import dev.outbox.internal.persistence.OutboxTransactions;
import dev.outbox.internal.trace.Tracing;
import jakarta.transaction.Status;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The inbox's transaction template (R5.3, R5.5) against a transaction that behaves as the servers' do: an
 * exception rolls it back and is rethrown; a transaction marked rollback-only rolls back and returns normally
 * (Narayana's {@code @Transactional} on WildFly); an Error leaves it to commit, the worst an interceptor could do
 * (the specification names only RuntimeException as rolling back). Whatever did not commit must not come back as
 * applied, or the message would be acknowledged.
 */
class InboxAttemptTest {

    private final ServerTransaction server = new ServerTransaction();
    private final Map<EventId, Inbox.Receipt> decisions = new HashMap<>();
    private InboxAttempt attempt;

    @BeforeEach
    void wire() {
        attempt = new InboxAttempt();
        attempt.inbox = new Inbox() {
            @Override
            public Receipt receive(String consumer, EventId eventId, String aggregateType, String aggregateId,
                                   Long aggregateVersion, Ordering ordering) {
                return decisions.getOrDefault(eventId, Receipt.FIRST);
            }
        };
        attempt.transaction = server;
        attempt.transactions = OutboxTransactions.of(server.registry);
        attempt.tracing = Tracing.NONE;
    }

    @Test
    void aChangeThatSwallowsAFailureAfterItsTransactionWasMarkedRollbackOnlyIsAFailedAttemptNotAnApplication() {
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> attempt.attempt("c", event(), "t-0@1", server::setRollbackOnly));
        assertTrue(e.getMessage().contains("rollback-only"), e.getMessage());
        assertEquals(List.of(Status.STATUS_ROLLEDBACK), server.outcomes, "nothing committed");
    }

    @Test
    void aTransactionThatEndsWithoutACommitThoughNothingThrewIsAFailedAttempt() {
        server.silentlyRollsBack = true; // a timeout, say
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> attempt.attempt("c", event(), "t-0@1", () -> { }));
        assertTrue(e.getMessage().contains("without a commit"), e.getMessage());
    }

    @Test
    void anErrorFromTheChangeRollsTheTransactionBackAndIsRethrown() {
        assertThrows(StackOverflowError.class, () -> attempt.attempt("c", event(), "t-0@1", () -> {
            throw new StackOverflowError();
        }));
        assertEquals(List.of(Status.STATUS_ROLLEDBACK), server.outcomes, "the mark did not commit without the change");
    }

    @Test
    void aBatchCommitsOnceAndReportsEachReceiptInOrder() {
        InboxedEvent first = event();
        InboxedEvent repeated = event();
        decisions.put(repeated.eventId(), Inbox.Receipt.DUPLICATE);
        List<String> applied = new ArrayList<>();
        Optional<List<Inbox.Receipt>> receipts = attempt.attemptTogether("c", List.of(
                new InboxAttempt.Delivery(first, "t-0@1", () -> applied.add("first")),
                new InboxAttempt.Delivery(repeated, "t-0@2", () -> applied.add("repeated"))));
        assertEquals(Optional.of(List.of(Inbox.Receipt.FIRST, Inbox.Receipt.DUPLICATE)), receipts);
        assertEquals(List.of("first"), applied, "a duplicate's change does not run");
        assertEquals(List.of(Status.STATUS_COMMITTED), server.outcomes, "one transaction for the batch");
    }

    @Test
    void aBatchWithAHeldEventOrAFailingChangeOrASwallowedRollbackCommitsNothingAndSaysSo() {
        InboxedEvent held = event();
        decisions.put(held.eventId(), Inbox.Receipt.HELD);
        assertEquals(Optional.empty(), attempt.attemptTogether("c", List.of(
                new InboxAttempt.Delivery(event(), "t-0@1", () -> { }),
                new InboxAttempt.Delivery(held, "t-0@2", () -> { }))), "held");
        assertEquals(Optional.empty(), attempt.attemptTogether("c", List.of(
                new InboxAttempt.Delivery(event(), "t-0@3", () -> { }),
                new InboxAttempt.Delivery(event(), "t-0@4", () -> {
                    throw new java.io.IOException("checked");
                }))), "a checked failure");
        assertEquals(Optional.empty(), attempt.attemptTogether("c", List.of(
                new InboxAttempt.Delivery(event(), "t-0@5", () -> { }),
                new InboxAttempt.Delivery(event(), "t-0@6", server::setRollbackOnly))), "a swallowed rollback");
        assertEquals(List.of(Status.STATUS_ROLLEDBACK, Status.STATUS_ROLLEDBACK, Status.STATUS_ROLLEDBACK),
                server.outcomes, "none of the three committed");
    }

    private static InboxedEvent event() {
        return new InboxedEvent(EventId.next(), "OrderNoted", "Order", "o-1", 1L, 1, Ordering.INDEPENDENT, "{}");
    }

    /**
     * A REQUIRES_NEW transaction as the servers run one: begin, the work, then rollback on an exception (rethrown),
     * a silent rollback when marked rollback-only, and otherwise a commit, Errors included.
     */
    private static final class ServerTransaction extends InboxTransaction {
        final FakeTransaction registry = new FakeTransaction();
        final List<Integer> outcomes = new ArrayList<>();
        boolean silentlyRollsBack;

        @Override
        public <T> T run(Supplier<T> work) {
            registry.synchronizations.clear();
            registry.rollbackOnly = false;
            T result;
            try {
                result = work.get();
            } catch (RuntimeException e) {
                end(Status.STATUS_ROLLEDBACK);
                throw e;
            } catch (Error e) {
                end(Status.STATUS_COMMITTED);
                throw e;
            }
            end(registry.rollbackOnly || silentlyRollsBack ? Status.STATUS_ROLLEDBACK : Status.STATUS_COMMITTED);
            return result;
        }

        void setRollbackOnly() {
            registry.setRollbackOnly();
        }

        private void end(int status) {
            outcomes.add(status);
            registry.complete(status);
        }
    }
}
