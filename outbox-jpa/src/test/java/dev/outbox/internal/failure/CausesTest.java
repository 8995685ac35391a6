package dev.outbox.internal.failure;

import org.junit.jupiter.api.Test;

import java.sql.SQLException;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Which failures are a database outage (retried until it ends) rather than a change that fails (parked). */
class CausesTest {

    @Test
    void connectionErrorsAreAnOutageOnPostgreSqlAndOnH2() {
        assertTrue(Causes.isDatabaseOutage(new IllegalStateException(new SQLException("refused", "08001"))),
                "PostgreSQL: connection refused");
        // Issue 16 item 10: H2 reports a lost connection with its own codes, not SQLSTATE class 08; dead-lettering
        // records because the embedded database was away loses them from the consumer's point of view.
        assertTrue(Causes.isDatabaseOutage(new IllegalStateException(new SQLException("Connection is broken", "90067"))),
                "H2: connection broken");
        assertTrue(Causes.isDatabaseOutage(new SQLException("Database is already closed", "90121")), "H2: closed");
        assertTrue(Causes.isDatabaseOutage(new SQLException("The object is already closed", "90007")),
                "H2: the connection was closed under the consumer");
    }

    @Test
    void aPostgreSqlShuttingDownOrStartingUpIsAnOutage() {
        assertTrue(Causes.isDatabaseOutage(new SQLException("terminating connection due to administrator command",
                "57P01")), "an immediate or fast shutdown");
        assertTrue(Causes.isDatabaseOutage(new SQLException("terminating connection due to crash of another server"
                + " process", "57P02")), "a crash of another backend");
        assertTrue(Causes.isDatabaseOutage(new SQLException("the database system is starting up", "57P03")),
                "crash recovery after the restart");
        assertTrue(dev.outbox.DatabaseOutage.isCauseOf(new RuntimeException(new SQLException("x", "57P03"))),
                "the public reading agrees with the outbox's own");
        assertFalse(dev.outbox.DatabaseOutage.isCauseOf(null), "no failure is no outage");
    }

    @Test
    void mariaDbsLockWaitTimeoutIsAnOutageAndItsDuplicateKeyAUniqueViolationButNotItsCheckViolation() {
        assertTrue(Causes.isDatabaseOutage(new SQLException("Lock wait timeout exceeded", "HY000", 1205)));
        assertFalse(Causes.isDatabaseOutage(new SQLException("some other general error", "HY000", 1366)));
        assertTrue(Causes.isUniqueViolation(new IllegalStateException(new SQLException("Duplicate entry", "23000", 1062))));
        assertFalse(Causes.isUniqueViolation(new SQLException("CONSTRAINT `outbox_event_version_ck` failed", "23000", 4025)));
        assertTrue(Causes.isUniqueViolation(new SQLException("duplicate key", "23505")), "H2 and PostgreSQL");
    }

    @Test
    void aUniqueViolationInsideAFailedBatchIsStillAUniqueViolation() {
        // PostgreSQL's driver reports a failed batch entry as a BatchUpdateException whose next exception is the cause.
        java.sql.BatchUpdateException batch = new java.sql.BatchUpdateException("Batch entry 1 was aborted", null, 0,
                new int[] {1}, null);
        batch.setNextException(new SQLException("duplicate key value violates unique constraint", "23505"));
        assertTrue(Causes.isUniqueViolation(batch), "the duplicate version is named, not a generic write failure");
        assertFalse(Causes.isUniqueViolation(new java.sql.BatchUpdateException("aborted", "08006", 0, new int[0], null)));
    }

    @Test
    void aConstraintViolationIsNoOutage() {
        assertFalse(Causes.isDatabaseOutage(new SQLException("duplicate key", "23505")));
        assertFalse(Causes.isDatabaseOutage(new IllegalArgumentException("bad payload")));
    }

    @Test
    void theSqlStateIsFoundDeepInTheChainAndInNextExceptions() {
        SQLException batch = new SQLException("batch failed");
        batch.setNextException(new SQLException("duplicate key", "23505"));
        assertEquals("23505", Causes.sqlState(new IllegalStateException(new RuntimeException(batch))));
        assertEquals(null, Causes.sqlState(new IllegalStateException("no SQL here")));
        assertEquals(SQLException.class, Causes.root(new IllegalStateException(batch)).getClass());
    }
}
