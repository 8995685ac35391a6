package dev.outbox.internal.persistence;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.UUID;

/**
 * Whether the outbox datasource's statements commit and roll back with the caller's JTA transaction (R1.1), told by
 * what they do rather than by what a connection answers (on Open Liberty an enlisted connection answers
 * {@code getAutoCommit()} true inside the transaction). The probe writes an inbox mark for a consumer of its own in
 * a transaction that rolls back: found afterwards, the datasource's statements commit alone (Liberty
 * {@code transactional="false"}, WildFly {@code jta=false}, a pool of its own), so a rolled-back command would
 * still publish its events and an inbox mark would stay though the change it guards failed. It then writes one in a
 * transaction that commits: missing afterwards, its statements never commit at all. Either way the start is refused
 * naming {@code outbox.datasource}; the probe leaves no row behind.
 */
public final class TransactionJoin {

    /** The inbox consumer the probe's marks are written for: a name no application's consumer would take. */
    public static final String PROBE_CONSUMER = "outbox:transaction-join-probe";

    /** Connections of the datasource under test, each call in a JTA transaction of its own. */
    public interface Transactions {

        /** Runs {@code work} on a connection of the datasource in a new transaction, then rolls the transaction back. */
        void rolledBack(OutboxDataSource.Work<?> work) throws SQLException;

        /** Runs {@code work} on a connection of the datasource in a new transaction, then commits it. */
        <T> T committed(OutboxDataSource.Work<T> work) throws SQLException;
    }

    private TransactionJoin() {
    }

    /**
     * @param dataSource the datasource's name as the settings give it, for the refusal
     * @throws NotInTransactionException when the datasource's statements do not follow the transaction
     */
    public static void verify(Dialect dialect, Transactions transactions, String dataSource) throws SQLException {
        UUID rolledBack = UUID.randomUUID();
        transactions.rolledBack(connection -> mark(dialect, connection, rolledBack));
        if (transactions.committed(connection -> forget(connection, rolledBack))) {
            throw new NotInTransactionException(dataSource, "a row it wrote in a transaction that was rolled back"
                    + " was committed all the same");
        }
        UUID committed = UUID.randomUUID();
        transactions.committed(connection -> mark(dialect, connection, committed));
        if (!transactions.committed(connection -> forget(connection, committed))) {
            throw new NotInTransactionException(dataSource, "a row it wrote in a transaction that committed is not"
                    + " there");
        }
    }

    /**
     * The inbox's own insert of a mark, the statement a consumer's transaction runs. Kept an hour, so that cleanup on
     * another server never takes it between the probe's transactions (which would read as a wrong verdict), and a
     * mark a crash left behind still goes.
     */
    private static boolean mark(Dialect dialect, Connection connection, UUID id) throws SQLException {
        OffsetDateTime now = OffsetDateTime.now(ZoneOffset.UTC);
        return dialect.markProcessed(connection, PROBE_CONSUMER, id, null, null, null, now, now.plusHours(1));
    }

    /** Deletes the probe's mark; true when it was there. */
    private static boolean forget(Connection connection, UUID id) throws SQLException {
        try (PreparedStatement delete = connection.prepareStatement(InboxMarks.FORGET_MARK)) {
            delete.setString(1, PROBE_CONSUMER);
            delete.setObject(2, id);
            return delete.executeUpdate() == 1;
        }
    }
}
