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

    @Inject
    SchemaInstaller schema;

    /** The schema the probe writes in, installed outside any transaction (DDL never joins a caller's). */
    @Transactional(TxType.NOT_SUPPORTED)
    public void installSchema() {
        schema.ensureInstalled();
    }

    @Override
    @Transactional(value = TxType.REQUIRES_NEW, rollbackOn = SQLException.class)
    public void rolledBack(OutboxDataSource.Work<?> work) throws SQLException {
        try (Connection connection = database.open()) {
            work.on(connection);
        }
        transactions.registry().setRollbackOnly();
    }

    @Override
    @Transactional(value = TxType.REQUIRES_NEW, rollbackOn = SQLException.class)
    public <T> T committed(OutboxDataSource.Work<T> work) throws SQLException {
        try (Connection connection = database.open()) {
            return work.on(connection);
        }
    }
}
