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
    private final List<Long> releases = new ArrayList<>();
    private final List<String> failures = new ArrayList<>();
    private Received failingSuccessor;
    private InboxAttempt attempt;

    @BeforeEach
    void wire() {
        attempt = new InboxAttempt();
        attempt.inbox = new ConsumerInbox() {
            @Override
            public Resequencer.Result receive(String consumer, Received received, Resequencer.Change change,
                                              long releaseBelow) throws Exception {
                releases.add(releaseBelow);
                if (releaseBelow == Resequencer.RELEASE_ALL && failingSuccessor != null) {
                    throw new Resequencer.SuccessorFailed(failingSuccessor, new IllegalStateException("poison"));
                }
                Inbox.Receipt receipt = decisions.getOrDefault(received.event().eventId(), Inbox.Receipt.FIRST);
                if (receipt == Inbox.Receipt.FIRST) {
                    change.apply(received);
                }
                return new Resequencer.Result(receipt, List.of(), false);
            }

            @Override
            public List<String[]> ready(String consumer, int limit) {
                return List.of();
            }

            @Override
            public void successorFailed(String consumer, Received successor, Throwable failure) {
                failures.add(successor.event().eventId() + " " + failure.getClass().getSimpleName());
            }
        };
        attempt.lastSweep.put("c", System.nanoTime()); // no release sweep in these tests: one transaction each
        attempt.transaction = server;
        attempt.transactions = OutboxTransactions.of(server.registry);
        attempt.tracing = Tracing.NONE;
    }

    @Test
    void aChangeThatSwallowsAFailureAfterItsTransactionWasMarkedRollbackOnlyIsAFailedAttemptNotAnApplication() {
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> attempt.attempt("c", received(), turn -> server.setRollbackOnly()));
        assertTrue(e.getMessage().contains("rollback-only"), e.getMessage());
        assertEquals(List.of(Status.STATUS_ROLLEDBACK), server.outcomes, "nothing committed");
    }

    @Test
    void aTransactionThatEndsWithoutACommitThoughNothingThrewIsAFailedAttempt() {
        server.silentlyRollsBack = true; // a timeout, say
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> attempt.attempt("c", received(), turn -> { }));
        assertTrue(e.getMessage().contains("without a commit"), e.getMessage());
    }

    @Test
    void anErrorFromTheChangeRollsTheTransactionBackAndIsRethrown() {
        assertThrows(StackOverflowError.class, () -> attempt.attempt("c", received(), turn -> {
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
                new InboxAttempt.Delivery(new Received(first, "t-0@1"), turn -> applied.add("first")),
                new InboxAttempt.Delivery(new Received(repeated, "t-0@2"), turn -> applied.add("repeated"))));
        assertEquals(Optional.of(List.of(Inbox.Receipt.FIRST, Inbox.Receipt.DUPLICATE)), receipts);
        assertEquals(List.of("first"), applied, "a duplicate's change does not run");
        assertEquals(List.of(Status.STATUS_COMMITTED), server.outcomes, "one transaction for the batch");
    }

    @Test
    void aBatchWithAFailingChangeOrAnErrorOrASwallowedRollbackCommitsNothingAndSaysSo() {
        assertEquals(Optional.empty(), attempt.attemptTogether("c", List.of(
                new InboxAttempt.Delivery(new Received(event(), "t-0@1"), turn -> { }),
                new InboxAttempt.Delivery(new Received(event(), "t-0@2"), turn -> {
                    throw new AssertionError("a change's own Error");
                }))), "an Error that is no VM error: the batch goes again one event at a time, the thread lives");
        assertEquals(Optional.empty(), attempt.attemptTogether("c", List.of(
                new InboxAttempt.Delivery(new Received(event(), "t-0@3"), turn -> { }),
                new InboxAttempt.Delivery(new Received(event(), "t-0@4"), turn -> {
                    throw new java.io.IOException("checked");
                }))), "a checked failure");
        assertEquals(Optional.empty(), attempt.attemptTogether("c", List.of(
                new InboxAttempt.Delivery(new Received(event(), "t-0@5"), turn -> { }),
                new InboxAttempt.Delivery(new Received(event(), "t-0@6"), turn -> server.setRollbackOnly()))),
                "a swallowed rollback");
        assertEquals(List.of(Status.STATUS_ROLLEDBACK, Status.STATUS_ROLLEDBACK, Status.STATUS_ROLLEDBACK),
                server.outcomes, "none of the three committed");
    }

    /** R5.7: a waiting event that fails in its turn must not block the version it waited for. */
    @Test
    void aSuccessorThatFailsInItsTurnLeavesTheMissingVersionAppliedAloneAndTheFailureRecorded() throws Exception {
        failingSuccessor = new Received(new InboxedEvent(EventId.next(), "OrderNoted", "Order", "o-1", 7L, 1,
                Ordering.STRICT, "{}"), "t-0@7");
        List<String> applied = new ArrayList<>();
        Received missing = received();
        assertEquals(Inbox.Receipt.FIRST, attempt.attempt("c", missing, turn -> applied.add("missing")));
        assertEquals(List.of(Resequencer.RELEASE_ALL, 7L), releases,
                "first with every successor, then only with those below the failed one");
        assertEquals(List.of(Status.STATUS_ROLLEDBACK, Status.STATUS_COMMITTED), server.outcomes);
        assertEquals(List.of("missing"), applied, "the missing version applied once, without the failed one");
        assertEquals(List.of(failingSuccessor.event().eventId() + " IllegalStateException"), failures,
                "the failure recorded on the successor, which stays waiting");
    }

    private static Received received() {
        return new Received(event(), "t-0@1");
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
