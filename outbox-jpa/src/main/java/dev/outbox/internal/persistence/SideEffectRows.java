package dev.outbox.internal.persistence;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.OffsetDateTime;
import java.util.UUID;

/**
 * The statements on {@code side_effect}, the ledger of external side effects (R5.4).
 */
public final class SideEffectRows {

    /** Records an attempt's start unless the effect has a record; never aborts the transaction on one. */
    public static final String INSERT_IF_ABSENT = "INSERT INTO side_effect (consumer, effect_key, event_id, effect, state,"
            + " attempts, updated_at) SELECT ?, ?, ?, ?, 'STARTED', 1, ? WHERE NOT EXISTS"
            + " (SELECT 1 FROM side_effect WHERE consumer = ? AND effect_key = ?)";
    public static final String READ_STATE = "SELECT state FROM side_effect WHERE consumer = ? AND effect_key = ?";
    public static final String RESTART = "UPDATE side_effect SET state = 'STARTED', attempts = attempts + 1, updated_at = ?"
            + " WHERE consumer = ? AND effect_key = ? AND state <> 'SUCCEEDED'";
    public static final String FINISH = "UPDATE side_effect SET state = ?, external_ref = ?, updated_at = ?"
            + " WHERE consumer = ? AND effect_key = ?";

    /**
     * R5.4: settled side-effect records (SUCCEEDED, FAILED) past the inbox retention, in small batches. A STARTED one
     * stays whatever its age: its outcome is unknown until someone reconciles it with the external service.
     */
    public static final String DELETE_SETTLED_SIDE_EFFECTS_BATCH = "DELETE FROM side_effect WHERE state <> 'STARTED' AND updated_at < ?"
            + " AND (consumer, effect_key) IN (SELECT consumer, effect_key FROM (SELECT consumer, effect_key FROM side_effect"
            + " WHERE state <> 'STARTED' AND updated_at < ? ORDER BY updated_at FETCH FIRST ? ROWS ONLY) batch)";

    /**
     * Records that a side effect is about to happen, in the caller's transaction, and answers what the attempts before
     * left: {@code NONE} (none), {@code STARTED} (an unknown outcome), {@code SUCCEEDED} or {@code FAILED}. A side
     * effect that did not succeed is started again.
     */
    public static String begin(OutboxDataSource database, String consumer, String key, UUID eventId, String effect,
                               OffsetDateTime now) {
        return database.onConnection(connection -> begin(connection, consumer, key, eventId, effect, now),
                () -> "side-effect ledger failed for " + consumer + " " + effect + " of " + eventId);
    }

    /**
     * Records a side effect's outcome ({@code SUCCEEDED} or {@code FAILED}) in the caller's transaction; one that was
     * never begun is refused.
     */
    public static void finish(OutboxDataSource database, String consumer, String key, String state,
                              String externalRef, OffsetDateTime now) {
        database.onConnection(connection -> {
            finish(connection, consumer, key, state, externalRef, now);
            return null;
        }, () -> "side-effect ledger failed for " + consumer + " " + key);
    }

    static String begin(Connection connection, String consumer, String key, UUID eventId, String effect,
                                OffsetDateTime now) throws SQLException {
        try (PreparedStatement insert = connection.prepareStatement(INSERT_IF_ABSENT)) {
            insert.setString(1, consumer);
            insert.setString(2, key);
            insert.setObject(3, eventId);
            insert.setString(4, effect);
            insert.setObject(5, now);
            insert.setString(6, consumer);
            insert.setString(7, key);
            if (insert.executeUpdate() == 1) {
                return "NONE";
            }
        }
        String previous;
        try (PreparedStatement read = connection.prepareStatement(READ_STATE)) {
            read.setString(1, consumer);
            read.setString(2, key);
            try (ResultSet rs = read.executeQuery()) {
                rs.next();
                previous = rs.getString("state");
            }
        }
        if (!previous.equals("SUCCEEDED")) {
            try (PreparedStatement restart = connection.prepareStatement(RESTART)) {
                restart.setObject(1, now);
                restart.setString(2, consumer);
                restart.setString(3, key);
                restart.executeUpdate();
            }
        }
        return previous;
    }

    static void finish(Connection connection, String consumer, String key, String state, String externalRef,
                               OffsetDateTime now) throws SQLException {
        try (PreparedStatement finish = connection.prepareStatement(FINISH)) {
            finish.setString(1, state);
            finish.setString(2, externalRef);
            finish.setObject(3, now);
            finish.setString(4, consumer);
            finish.setString(5, key);
            if (finish.executeUpdate() != 1) {
                throw new IllegalStateException("no side effect " + key + " of consumer " + consumer + " was begun");
            }
        }
    }

    /** External side effects recorded for some events (R5.4): a replay's dry run warns about them. */
    public static String sideEffectsOf(int count) {
        return "SELECT consumer, effect, state, COUNT(*) AS events FROM side_effect WHERE event_id IN (" + Sql.placeholders(count)
                + ") GROUP BY consumer, effect, state ORDER BY consumer, effect, state";
    }

    private SideEffectRows() {
    }
}
