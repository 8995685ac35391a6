package dev.outbox.internal.ops;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.OffsetDateTime;
import java.util.UUID;

/**
 * One outbox row as an operator sees it (columns of {@code Dialect.EVENT_COLUMNS}). {@code payload} is null in
 * lists: a body is shown per event, on request, and never logged (R6.3).
 */
public record StoredEvent(UUID eventId, String aggregateType, String aggregateId, long aggregateVersion,
                          String eventType, int schemaVersion, String payload, String payloadRef,
                          OffsetDateTime createdAt, String state, int attempts, String lastErrorClass,
                          OffsetDateTime deliveredAt, String brokerMessageId) {

    public static StoredEvent read(ResultSet rs) throws SQLException {
        return new StoredEvent(rs.getObject(1, UUID.class), rs.getString(2), rs.getString(3), rs.getLong(4),
                rs.getString(5), rs.getInt(6), rs.getString(7), rs.getString(8), rs.getObject(9, OffsetDateTime.class),
                rs.getString(10), rs.getInt(11), rs.getString(12), rs.getObject(13, OffsetDateTime.class),
                rs.getString(14));
    }

    /** Ids, version and attempts: what a log line or an audit row may say about an event (R6.3). */
    public String describe() {
        return "event " + eventId + " (" + eventType + " of " + aggregateType + "/" + aggregateId + " v"
                + aggregateVersion + ", attempts " + attempts + ")";
    }
}
