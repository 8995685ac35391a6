package dev.outbox.internal.persistence;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.transaction.Transactional;
import jakarta.transaction.Transactional.TxType;

import java.sql.Connection;
import java.sql.SQLException;

/**
 * The server's JTA transactions for {@link TransactionJoin}'s start-up probe: each call in a new one, on a
 * connection of the outbox datasource taken inside it, the way the recorder and the inbox take theirs.
 */
@ApplicationScoped
public class TransactionJoinProbe implements TransactionJoin.Transactions {

    @Inject
    OutboxDataSource database;

    @Inject
    OutboxTransactions transactions;

    @Override
    @Transactional(value = TxType.REQUIRES_NEW, rollbackOn = SQLException.class)
    public void rolledBack(OutboxDataSource.Work<?> work) throws SQLException {
        try (Connection connection = database.connect()) {
            work.on(connection);
        }
        transactions.registry().setRollbackOnly();
    }

    @Override
    @Transactional(value = TxType.REQUIRES_NEW, rollbackOn = SQLException.class)
    public <T> T committed(OutboxDataSource.Work<T> work) throws SQLException {
        try (Connection connection = database.connect()) {
            return work.on(connection);
        }
    }
}
