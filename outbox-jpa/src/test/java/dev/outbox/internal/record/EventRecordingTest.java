package dev.outbox.internal.record;

import dev.outbox.*;

import dev.outbox.internal.record.OutboxCommitted;
import dev.outbox.PublishingProtocol;
import dev.outbox.internal.config.OutboxSettings;
import dev.outbox.internal.persistence.OutboxTransactions;
import jakarta.enterprise.event.Event;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceException;
import jakarta.transaction.Status;
import jakarta.transaction.Synchronization;
import jakarta.transaction.TransactionSynchronizationRegistry;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.lang.reflect.Proxy;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The recorder's own logic with hand-written stand-ins for the transaction and the entity manager: when it
 * writes, when it refuses, when it marks rollback-only, when it announces a commit. That the rows really
 * commit with the business change is proven on a real server and database in itests (WriteSideIT).
 */
class EventRecordingTest {

    private final FakeTransaction transaction = new FakeTransaction();
    private final List<String> entityManagerCalls = new ArrayList<>();
    private final List<OutboxCommitted> announced = new ArrayList<>();
    private RuntimeException flushFailure;
    private EventRecording recorder;

    private static final OutboxEvent PLACED = OutboxEvent.of("Order", "o-1", 1, "OrderPlaced", "{\"a\":1}");
    private static final OutboxEvent PAID = OutboxEvent.of("Order", "o-1", 2, "OrderPaid", "{\"a\":2}");

    @BeforeEach
    void wire() {
        recorder = new EventRecording();
        recorder.transactions = OutboxTransactions.of(transaction);
        recorder.settings = new OutboxSettings(1000, false, "java:comp/DefaultDataSource", "auto", java.time.Duration.ofDays(30), java.time.Duration.ofSeconds(2), 10,
                "java:comp/TransactionSynchronizationRegistry");
        recorder.protocol = new PublishingProtocol() {
            @Override
            public boolean outboxPublishes(String eventType) {
                return true;
            }
        };
        recorder.entityManager = (EntityManager) Proxy.newProxyInstance(getClass().getClassLoader(),
                new Class<?>[] {EntityManager.class}, (proxy, method, args) -> {
                    entityManagerCalls.add(method.getName());
                    if (method.getName().equals("flush") && flushFailure != null) {
                        throw flushFailure;
                    }
                    return null;
                });
        @SuppressWarnings("unchecked")
        Event<OutboxCommitted> event = (Event<OutboxCommitted>) Proxy.newProxyInstance(getClass().getClassLoader(),
                new Class<?>[] {Event.class}, (proxy, method, args) -> {
                    if (method.getName().equals("fire")) {
                        announced.add((OutboxCommitted) args[0]);
                    }
                    return null;
                });
        recorder.committed = event;
    }

    @Test
    void withoutATransactionItRefusesAndWritesNothing() {
        transaction.status = Status.STATUS_NO_TRANSACTION;
        NoTransactionException e = assertThrows(NoTransactionException.class, () -> recorder.record(List.of(PLACED)));
        assertTrue(e.getMessage().contains("nothing was written"), e.getMessage());
        assertEquals(List.of(), entityManagerCalls, "no entity manager call without a transaction");
    }

    @Test
    void outsideACommandEventsAreInsertedAndFlushedAtOnce() {
        List<EventId> ids = recorder.record(List.of(PLACED, PAID));
        assertEquals(2, ids.size());
        assertEquals(List.of("persist", "persist", "flush"), entityManagerCalls);
        assertFalse(transaction.rollbackOnly);
    }

    @Test
    void anInvalidEventMarksTheTransactionRollbackOnlyAndWritesNoneOfTheCall() {
        OutboxEvent broken = OutboxEvent.of("Order", "o-1", 0, "OrderPaid", "{}");
        assertThrows(InvalidEventException.class, () -> recorder.record(List.of(PLACED, broken)));
        assertTrue(transaction.rollbackOnly, "the business change must not commit without its event");
        assertEquals(List.of(), entityManagerCalls, "not even the valid first event is written");
    }

    @Test
    void aUniqueViolationBecomesADuplicateVersionAndMarksRollbackOnly() {
        flushFailure = new PersistenceException(new SQLException("duplicate key", "23505"));
        assertThrows(DuplicateEventVersionException.class, () -> recorder.record(List.of(PLACED)));
        assertTrue(transaction.rollbackOnly);
    }

    @Test
    void anyOtherInsertFailureIsAWriteFailureAndMarksRollbackOnly() {
        flushFailure = new PersistenceException(new SQLException("connection reset", "08006"));
        assertThrows(OutboxWriteException.class, () -> recorder.record(List.of(PLACED)));
        assertTrue(transaction.rollbackOnly);
    }

    @Test
    void insideACommandEventsWaitUntilTheOutermostCommandReturns() throws Exception {
        recorder.command(() -> {
            recorder.record(List.of(PLACED));
            recorder.command(() -> recorder.record(List.of(PAID)));
            assertEquals(List.of(), entityManagerCalls, "nothing written while the command runs");
            return null;
        });
        assertEquals(List.of("persist", "persist", "flush"), entityManagerCalls);
    }

    @Test
    void anUncheckedExceptionDropsTheCommandsEvents() {
        assertThrows(IllegalStateException.class, () -> recorder.command(() -> {
            recorder.record(List.of(PLACED));
            throw new IllegalStateException("business rule broken");
        }));
        assertEquals(List.of(), entityManagerCalls, "the transaction rolls back: write nothing");
        transaction.complete(Status.STATUS_ROLLEDBACK);
        assertEquals(List.of(), announced);
    }

    @Test
    void aCheckedExceptionStillWritesTheEventsBecauseTheTransactionCommits() {
        assertThrows(IOException.class, () -> recorder.command(() -> {
            recorder.record(List.of(PLACED));
            throw new IOException("checked: @Transactional commits");
        }));
        assertEquals(List.of("persist", "flush"), entityManagerCalls);
    }

    @Test
    void aCommitAnnouncesTheRecordedIdsOnceAndARollbackAnnouncesNothing() {
        List<EventId> ids = recorder.record(List.of(PLACED, PAID));
        assertEquals(1, transaction.synchronizations.size(), "one after-commit hook per transaction");
        recorder.record(List.of(OutboxEvent.of("Order", "o-2", 1, "OrderPlaced", "{}")));
        assertEquals(1, transaction.synchronizations.size());

        transaction.complete(Status.STATUS_COMMITTED);
        assertEquals(1, announced.size());
        assertEquals(ids, announced.get(0).eventIds().subList(0, 2));
        assertEquals(3, announced.get(0).eventIds().size());
    }

    /** A JTA transaction as the registry shows it: status, resources, synchronizations. */
    private static final class FakeTransaction implements TransactionSynchronizationRegistry {
        int status = Status.STATUS_ACTIVE;
        boolean rollbackOnly;
        final Map<Object, Object> resources = new HashMap<>();
        final List<Synchronization> synchronizations = new ArrayList<>();

        void complete(int outcome) {
            synchronizations.forEach(s -> s.afterCompletion(outcome));
        }

        @Override
        public Object getTransactionKey() {
            return this;
        }

        @Override
        public void putResource(Object key, Object value) {
            resources.put(key, value);
        }

        @Override
        public Object getResource(Object key) {
            return resources.get(key);
        }

        @Override
        public void registerInterposedSynchronization(Synchronization sync) {
            synchronizations.add(sync);
        }

        @Override
        public int getTransactionStatus() {
            return status;
        }

        @Override
        public void setRollbackOnly() {
            rollbackOnly = true;
        }

        @Override
        public boolean getRollbackOnly() {
            return rollbackOnly;
        }
    }
}
