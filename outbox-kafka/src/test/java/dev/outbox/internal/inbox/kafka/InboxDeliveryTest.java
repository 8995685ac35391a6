package dev.outbox.internal.inbox.kafka;

import org.junit.jupiter.api.Test;

import java.sql.SQLException;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Which failures are a database outage (retried until it ends) rather than a change that fails (parked). */
class InboxDeliveryTest {

    @Test
    void connectionErrorsAreAnOutageOnPostgreSqlAndOnH2() {
        assertTrue(InboxDelivery.isOutage(new IllegalStateException(new SQLException("refused", "08001"))),
                "PostgreSQL: connection refused");
        // Issue 16 item 10: H2 reports a lost connection with its own codes, not SQLSTATE class 08; dead-lettering
        // records because the embedded database was away loses them from the consumer's point of view.
        assertTrue(InboxDelivery.isOutage(new IllegalStateException(new SQLException("Connection is broken", "90067"))),
                "H2: connection broken");
        assertTrue(InboxDelivery.isOutage(new SQLException("Database is already closed", "90121")), "H2: closed");
        assertTrue(InboxDelivery.isOutage(new SQLException("The object is already closed", "90007")),
                "H2: the connection was closed under the consumer");
    }

    @Test
    void aConstraintViolationIsNoOutage() {
        assertFalse(InboxDelivery.isOutage(new SQLException("duplicate key", "23505")));
        assertFalse(InboxDelivery.isOutage(new IllegalArgumentException("bad payload")));
    }
}
