package dev.outbox.internal.persistence;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.OffsetDateTime;

/**
 * What cleanup deletes, one small batch per statement, oldest first, each row re-checked as it is locked (R8.1,
 * R5.6): never a long DELETE, never a row that is not past its cut-off in a state that may go.
 */
public enum Expired {
    /** Delivered outbox rows delivered before the cut-off; pending and parked rows never go (R4.4, R6.6). */
    DELIVERED_EVENTS(OutboxRows.DELETE_DELIVERED_BATCH),
    /** Inbox marks whose retain-until passed; a mark above its consumer's high-water mark stays (R5.6). */
    INBOX_MARKS(InboxMarks.DELETE_PROCESSED_BATCH),
    /** Holds an older release kept, held before the cut-off. */
    INBOX_HOLDS(InboxMarks.DELETE_EXPIRED_HOLDS_BATCH),
    /** Settled side-effect records (succeeded or failed) before the cut-off; an unknown outcome stays (R5.4). */
    SETTLED_SIDE_EFFECTS(SideEffectRows.DELETE_SETTLED_SIDE_EFFECTS_BATCH);

    private final String deleteBatch;

    Expired(String deleteBatch) {
        this.deleteBatch = deleteBatch;
    }

    /** {@link #deleteBatch(Connection, OffsetDateTime, int)} on a connection of the outbox's datasource. */
    public int deleteBatch(OutboxDataSource database, OffsetDateTime cutOff, int limit) {
        return database.onConnection(connection -> deleteBatch(connection, cutOff, limit),
                () -> "outbox cleanup batch of " + this + " failed");
    }

    /** Deletes up to {@code limit} rows past {@code cutOff}, in the caller's transaction; answers how many went. */
    public int deleteBatch(Connection connection, OffsetDateTime cutOff, int limit) throws SQLException {
        try (PreparedStatement delete = connection.prepareStatement(deleteBatch)) {
            delete.setObject(1, cutOff);
            delete.setObject(2, cutOff);
            delete.setInt(3, limit);
            return delete.executeUpdate();
        }
    }
}
