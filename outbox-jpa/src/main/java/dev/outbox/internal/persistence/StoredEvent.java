package dev.outbox.internal.persistence;


import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.OffsetDateTime;
import java.util.Arrays;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import java.util.stream.Collectors;

/**
 * One outbox row as an operator sees it (columns of {@code OutboxRows.EVENT_COLUMNS}). {@code payload} is null in
 * lists: a body is shown per event, on request, and never logged (R6.3). {@code parkedAt} is when it last parked
 * (schema V8; null if it never did, or parked under an older release). {@code acceptedBy} names the transports that
 * accepted it (or may have) on an attempt that did not deliver it everywhere (schema V12).
 */
public record StoredEvent(UUID eventId, String aggregateType, String aggregateId, long aggregateVersion,
                          String eventType, int schemaVersion, String payload, String payloadRef,
                          OffsetDateTime createdAt, String state, int attempts, String lastErrorClass,
                          OffsetDateTime parkedAt, OffsetDateTime deliveredAt, String brokerMessageId,
                          Set<String> acceptedBy) {

    public StoredEvent {
        acceptedBy = Set.copyOf(acceptedBy);
    }

    /**
     * Whether a broker took this event with its present body: a transport accepted it (or may have) on an attempt,
     * or it was delivered once (a replay that parked). Its consumers may hold this body, so it must stay (R6.6).
     */
    public boolean reachedABroker() {
        return !acceptedBy.isEmpty() || deliveredAt != null;
    }

    static StoredEvent read(ResultSet rs) throws SQLException {
        return new StoredEvent(rs.getObject("event_id", UUID.class), rs.getString("aggregate_type"),
                rs.getString("aggregate_id"), rs.getLong("aggregate_version"), rs.getString("event_type"),
                rs.getInt("schema_version"), rs.getString("payload"), rs.getString("payload_ref"),
                rs.getObject("created_at", OffsetDateTime.class), rs.getString("state"), rs.getInt("attempts"),
                rs.getString("last_error_class"), rs.getObject("parked_at", OffsetDateTime.class),
                rs.getObject("delivered_at", OffsetDateTime.class),
                rs.getString("broker_message_id"), transports(rs.getString("accepted_by")));
    }

    /** The transports of an accepted_by value (",jms,kafka,"); none for null. */
    static Set<String> transports(String acceptedBy) {
        if (acceptedBy == null) {
            return Set.of();
        }
        return Arrays.stream(acceptedBy.split(",")).filter(name -> !name.isBlank())
                .collect(Collectors.toCollection(TreeSet::new));
    }

    /** Ids, version and attempts: what a log line or an audit row may say about an event (R6.3). */
    public String describe() {
        return "event " + eventId + " (" + eventType + " of " + aggregateType + "/" + aggregateId + " v"
                + aggregateVersion + ", attempts " + attempts + ")";
    }
}
