package dev.outbox.internal.persistence;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.transaction.Transactional;
import jakarta.transaction.Transactional.TxType;

import java.sql.Connection;
import java.sql.SQLException;

/**
 * Statements that must never run in a caller's transaction, on a connection of their own: a check that makes the
 * database fail on purpose would abort the caller's PostgreSQL transaction if it ran on the caller's connection.
 */
@ApplicationScoped
public class OutsideTransaction {

    @Inject
    OutboxDataSource database;

    @Transactional(TxType.NOT_SUPPORTED)
    public <T> T run(OutboxDataSource.Work<T> work) throws SQLException {
        try (Connection connection = database.open()) {
            return work.on(connection);
        }
    }
}
