package dev.outbox.internal.persistence;


import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.OffsetDateTime;
import java.util.UUID;

/**
 * One outbox row as an operator sees it (columns of {@code OutboxRows.EVENT_COLUMNS}). {@code payload} is null in
 * lists: a body is shown per event, on request, and never logged (R6.3). {@code parkedAt} is when it last parked
 * (schema V8; null if it never did, or parked under an older release).
 */
public record StoredEvent(UUID eventId, String aggregateType, String aggregateId, long aggregateVersion,
                          String eventType, int schemaVersion, String payload, String payloadRef,
                          OffsetDateTime createdAt, String state, int attempts, String lastErrorClass,
                          OffsetDateTime parkedAt, OffsetDateTime deliveredAt, String brokerMessageId) {

    static StoredEvent read(ResultSet rs) throws SQLException {
        return new StoredEvent(rs.getObject("event_id", UUID.class), rs.getString("aggregate_type"),
                rs.getString("aggregate_id"), rs.getLong("aggregate_version"), rs.getString("event_type"),
                rs.getInt("schema_version"), rs.getString("payload"), rs.getString("payload_ref"),
                rs.getObject("created_at", OffsetDateTime.class), rs.getString("state"), rs.getInt("attempts"),
                rs.getString("last_error_class"), rs.getObject("parked_at", OffsetDateTime.class),
                rs.getObject("delivered_at", OffsetDateTime.class),
                rs.getString("broker_message_id"));
    }

    /** Ids, version and attempts: what a log line or an audit row may say about an event (R6.3). */
    public String describe() {
        return "event " + eventId + " (" + eventType + " of " + aggregateType + "/" + aggregateId + " v"
                + aggregateVersion + ", attempts " + attempts + ")";
    }
}
