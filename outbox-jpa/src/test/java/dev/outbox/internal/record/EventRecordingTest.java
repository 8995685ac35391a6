package dev.outbox.internal.record;

import dev.outbox.*;
import dev.outbox.PublishingProtocol;
import dev.outbox.internal.config.OutboxSettings;
import dev.outbox.internal.persistence.DataSourceCheck;
import dev.outbox.internal.persistence.Dialect;
import dev.outbox.internal.persistence.FakeTransaction;
import dev.outbox.internal.persistence.FreshH2;
import dev.outbox.internal.persistence.H2Dialect;
import dev.outbox.internal.persistence.NotInTransactionException;
import dev.outbox.internal.persistence.OutboxDataSource;
import dev.outbox.internal.persistence.OutboxRows;
import dev.outbox.internal.persistence.OutboxTransactions;
import dev.outbox.internal.persistence.TransactionJoin;
import dev.outbox.internal.persistence.TransactionJoinCheck;
import dev.outbox.internal.trace.OpenTelemetryTracing;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.TraceFlags;
import io.opentelemetry.api.trace.TraceState;
import io.opentelemetry.context.Scope;
import jakarta.enterprise.event.Event;
import jakarta.transaction.Status;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLTransientException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The recorder's own logic with a hand-written stand-in for the transaction, writing into a real in-memory H2 with
 * the outbox schema: when it writes, when it refuses, when it marks rollback-only, when it announces a commit. That
 * the rows really commit with the business change is proven on a real server and database in itests (WriteSideIT).
 */
class EventRecordingTest {

    private final FakeTransaction transaction = new FakeTransaction();
    private final List<OutboxCommitted> announced = new ArrayList<>();
    private Connection database;
    private String url;
    private EventRecording recorder;

    private static final OutboxEvent PLACED = OutboxEvent.of("Order", "o-1", 1, "OrderPlaced", "{\"a\":1}");
    private static final OutboxEvent PAID = OutboxEvent.of("Order", "o-1", 2, "OrderPaid", "{\"a\":2}");

    @BeforeEach
    void wire() throws SQLException {
        database = FreshH2.open();
        url = database.getMetaData().getURL();
        recorder = new EventRecording();
        recorder.dataSource = new OutboxDataSource() {
            @Override
            protected Connection open() throws SQLException {
                return DriverManager.getConnection(url, "sa", "");
            }

            @Override
            public Dialect dialect() {
                return new H2Dialect();
            }
        };
        recorder.transactions = OutboxTransactions.of(transaction);
        recorder.settings = new OutboxSettings(1000, false, "java:comp/DefaultDataSource", "auto", java.time.Duration.ofDays(30), java.time.Duration.ofSeconds(2), 10,
                "java:comp/TransactionSynchronizationRegistry", java.util.Set.of(), java.time.Duration.ofMinutes(1),
                java.util.Map.of(), java.time.Duration.ofSeconds(1), java.time.Duration.ofMinutes(5));
        recorder.protocol = new PublishingProtocol() {
            @Override
            public boolean outboxPublishes(String eventType) {
                return true;
            }
        };
        @SuppressWarnings("unchecked")
        Event<OutboxCommitted> event = (Event<OutboxCommitted>) Proxy.newProxyInstance(getClass().getClassLoader(),
                new Class<?>[] {Event.class}, (proxy, method, args) -> {
                    if (method.getName().equals("fire")) {
                        announced.add((OutboxCommitted) args[0]);
                    }
                    return null;
                });
        recorder.committed = event;
        recorder.tracing = new OpenTelemetryTracing(OpenTelemetry.noop().getTracer("test"));
    }

    @AfterEach
    void close() throws SQLException {
        database.close();
    }

    /** The rows in outbox_event, as "version type state" in version order. */
    private List<String> rows() throws SQLException {
        List<String> rows = new ArrayList<>();
        try (Statement select = database.createStatement();
             ResultSet rs = select.executeQuery("SELECT aggregate_version, event_type, state, publish_mode,"
                     + " next_attempt_at FROM outbox_event ORDER BY aggregate_version")) {
            while (rs.next()) {
                assertTrue(rs.getObject("next_attempt_at") != null, "a recorded row is due (the column's default)");
                rows.add(rs.getLong(1) + " " + rs.getString(2) + " " + rs.getString(3) + " " + rs.getString(4));
            }
        }
        return rows;
    }

    /**
     * Issue 42 item 3, R1.1: a datasource whose statements commit on their own (Liberty transactional="false",
     * WildFly jta=false), as the probe sees it, is refused at the write too (on WildFly a deployment whose start-up
     * refusal came during the server's boot still serves requests): the recorder names the setting, marks the
     * transaction rollback-only and writes nothing.
     */
    @Test
    void aDataSourceWhoseStatementsCommitAloneIsRefusedNamingTheSettingAndNothingIsWritten() {
        TransactionJoin.Transactions alone = new TransactionJoin.Transactions() {
            @Override
            public void rolledBack(OutboxDataSource.Work<?> work) throws SQLException {
                try (Connection autoCommit = DriverManager.getConnection(url, "sa", "")) {
                    work.on(autoCommit); // the rollback never reaches it
                }
            }

            @Override
            public <T> T committed(OutboxDataSource.Work<T> work) throws SQLException {
                try (Connection autoCommit = DriverManager.getConnection(url, "sa", "")) {
                    return work.on(autoCommit);
                }
            }
        };
        TransactionJoinCheck.of(recorder.dataSource, alone, "jdbc/alone");
        OutboxWriteException e = assertThrows(OutboxWriteException.class, () -> recorder.record(List.of(PLACED)));
        assertTrue(e.getCause() instanceof NotInTransactionException && e.getCause().getMessage().contains("jdbc/alone")
                && e.getCause().getMessage().contains("outbox.datasource"), String.valueOf(e.getCause()));
        assertTrue(transaction.rollbackOnly, "the business change must not commit without its event");
        assertEquals(List.of(), assertDoesNotThrow(this::rows), "no row that would commit on its own");
    }

    /**
     * Issue 42 item 6, R6.3 (and R1.2): a datasource the start-up settings check refused (a PostgreSQL driver that
     * quotes row values in its exceptions, an H2 that loses acknowledged commits) is refused at the write too: on
     * WildFly a deployment whose start-up refusal came during the server's boot still serves requests.
     */
    @Test
    void aDataSourceTheSettingsCheckRefusedIsRefusedAtTheWriteTooAndNothingIsWritten() {
        OutboxDataSource quoting = new OutboxDataSource() {
            @Override
            protected Connection open() throws SQLException {
                return DriverManager.getConnection(url, "sa", "");
            }

            @Override
            public Dialect dialect() {
                Dialect h2 = new H2Dialect();
                return (Dialect) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {Dialect.class},
                        (proxy, method, arguments) -> {
                            if (method.getName().equals("verifyDataSource")) {
                                throw new IllegalStateException("the outbox datasource " + arguments[1]
                                        + " quotes row values in its exceptions: set logServerErrorDetail=false");
                            }
                            try {
                                return method.invoke(h2, arguments);
                            } catch (InvocationTargetException e) {
                                throw e.getCause();
                            }
                        });
            }
        };
        recorder.dataSource = quoting;
        DataSourceCheck.of(quoting, "jdbc/quoting");
        OutboxWriteException e = assertThrows(OutboxWriteException.class, () -> recorder.record(List.of(PLACED)));
        assertTrue(e.getCause() instanceof SQLTransientException
                && e.getCause().getMessage().contains("jdbc/quoting")
                && e.getCause().getMessage().contains("logServerErrorDetail=false"), String.valueOf(e.getCause()));
        assertTrue(transaction.rollbackOnly, "the business change must not commit without its event");
        assertEquals(List.of(), assertDoesNotThrow(this::rows), "nothing written on a refused datasource");
    }

    @Test
    void withoutATransactionItRefusesAndWritesNothing() throws SQLException {
        transaction.status = Status.STATUS_NO_TRANSACTION;
        NoTransactionException e = assertThrows(NoTransactionException.class, () -> recorder.record(List.of(PLACED)));
        assertTrue(e.getMessage().contains("nothing was written"), e.getMessage());
        assertEquals(List.of(), rows(), "no row without a transaction");
    }

    @Test
    void outsideACommandEventsAreInsertedAtOnceAsPendingRows() throws SQLException {
        List<EventId> ids = recorder.record(List.of(PLACED, PAID));
        assertEquals(2, ids.size());
        assertEquals(List.of("1 OrderPlaced PENDING PUBLISH", "2 OrderPaid PENDING PUBLISH"), rows());
        assertFalse(transaction.rollbackOnly);
    }

    @Test
    void eventsRecordedInsideATracedSpanKeepItsContextAndOthersKeepNone() throws SQLException {
        // R6.7: the recording span becomes the consumers' parent; outside a span nothing is stored, so nothing is sent.
        String traceParent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
        try (Scope ignored = Span.wrap(SpanContext.create("4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7",
                TraceFlags.getSampled(), TraceState.getDefault())).makeCurrent()) {
            recorder.record(List.of(PLACED, PAID));
        }
        recorder.record(List.of(OutboxEvent.of("Order", "o-1", 3, "OrderShipped", "{}")));
        List<String> traces = new ArrayList<>();
        try (Statement select = database.createStatement();
             ResultSet rs = select.executeQuery("SELECT trace_parent, trace_state FROM outbox_event"
                     + " ORDER BY aggregate_version")) {
            while (rs.next()) {
                traces.add(rs.getString(1) + " " + rs.getString(2));
            }
        }
        assertEquals(List.of(traceParent + " null", traceParent + " null", "null null"), traces);
    }

    @Test
    void theRecorderLeavesTheDueTimeToTheDatabasesClock() {
        // Issue 16 item 6: written from the recording JVM's clock, a server running 40 s ahead would hold back its
        // own events for 40 s; the schema's default (V6) is the database's time, the clock every claim compares with.
        assertFalse(OutboxRows.RECORD.contains("next_attempt_at"), "the insert must leave next_attempt_at to its"
                + " column default: " + OutboxRows.RECORD);
    }

    @Test
    void anInvalidEventMarksTheTransactionRollbackOnlyAndWritesNoneOfTheCall() throws SQLException {
        OutboxEvent broken = OutboxEvent.of("Order", "o-1", 0, "OrderPaid", "{}");
        assertThrows(InvalidEventException.class, () -> recorder.record(List.of(PLACED, broken)));
        assertTrue(transaction.rollbackOnly, "the business change must not commit without its event");
        assertEquals(List.of(), rows(), "not even the valid first event is written");
    }

    @Test
    void aUniqueViolationBecomesADuplicateVersionAndMarksRollbackOnly() throws SQLException {
        recorder.record(List.of(PLACED));
        assertFalse(transaction.rollbackOnly);
        assertThrows(DuplicateEventVersionException.class, () -> recorder.record(List.of(PLACED)));
        assertTrue(transaction.rollbackOnly);
    }

    @Test
    void aDuplicateVersionInsideABatchIsStillADuplicateVersion() throws SQLException {
        OutboxEvent againPlaced = OutboxEvent.of("Order", "o-1", 1, "OrderPlaced", "{\"again\":true}");
        // one command's events go in as one JDBC batch when it returns; the third repeats the first's version
        assertThrows(DuplicateEventVersionException.class, () -> recorder.command(() -> {
            recorder.record(List.of(PLACED, PAID));
            return recorder.record(List.of(againPlaced));
        }));
        assertTrue(transaction.rollbackOnly);
    }

    @Test
    void anyOtherInsertFailureIsAWriteFailureAndMarksRollbackOnly() throws SQLException {
        try (Statement drop = database.createStatement()) {
            drop.execute("ALTER TABLE outbox_event RENAME TO outbox_event_gone");
        }
        assertThrows(OutboxWriteException.class, () -> recorder.record(List.of(PLACED)));
        assertTrue(transaction.rollbackOnly);
    }

    @Test
    void insideACommandEventsWaitUntilTheOutermostCommandReturns() throws Exception {
        recorder.command(() -> {
            recorder.record(List.of(PLACED));
            recorder.command(() -> recorder.record(List.of(PAID)));
            assertEquals(List.of(), rows(), "nothing written while the command runs");
            return null;
        });
        assertEquals(List.of("1 OrderPlaced PENDING PUBLISH", "2 OrderPaid PENDING PUBLISH"), rows());
    }

    @Test
    void anUncheckedExceptionDropsTheCommandsEvents() throws SQLException {
        assertThrows(IllegalStateException.class, () -> recorder.command(() -> {
            recorder.record(List.of(PLACED));
            throw new IllegalStateException("business rule broken");
        }));
        assertEquals(List.of(), rows(), "the transaction rolls back: write nothing");
        transaction.complete(Status.STATUS_ROLLEDBACK);
        assertEquals(List.of(), announced);
    }

    @Test
    void aCheckedExceptionStillWritesTheEventsBecauseTheTransactionCommits() throws SQLException {
        assertThrows(IOException.class, () -> recorder.command(() -> {
            recorder.record(List.of(PLACED));
            throw new IOException("checked: @Transactional commits");
        }));
        assertEquals(List.of("1 OrderPlaced PENDING PUBLISH"), rows());
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
}
