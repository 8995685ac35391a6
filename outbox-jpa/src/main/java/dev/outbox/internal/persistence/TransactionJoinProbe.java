package dev.outbox.internal.persistence;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.transaction.Transactional;

import java.sql.Connection;
import java.sql.SQLException;

/**
 * At start, in a transaction of its own, takes a connection of the outbox's datasource the way the recorder does:
 * a datasource the server does not enlist in JTA transactions is refused before any command runs (R1.1), rather
 * than at the first recorded event.
 */
@ApplicationScoped
public class TransactionJoinProbe {

    @Inject
    OutboxDataSource database;

    /** @throws NotInTransactionException naming {@code outbox.datasource} when its connections commit alone */
    @Transactional(Transactional.TxType.REQUIRES_NEW)
    public void verify() throws SQLException {
        try (Connection joined = database.joined()) {
            joined.isValid(0); // nothing to run: taking it, in the transaction, is the test
        }
    }
}
