package dev.outbox.internal.persistence;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.OffsetDateTime;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;
import java.util.stream.Collectors;

/**
 * An outbox row written straight into {@code outbox_event}, as the recorder or a later delivery would have left
 * it, for tests that start from a given table state. Every test writes its rows through {@link #insert}, and
 * bulk loads name their columns with {@link #COLUMNS}, so a new column is added in one place.
 *
 * <p>A time left unset is the database's: {@code created_at} takes {@code CURRENT_TIMESTAMP} and
 * {@code next_attempt_at} is left out so its column default applies, as when the recorder writes it (R4.3).
 */
public record RecordedRow(UUID eventId, String aggregateType, String aggregateId, long aggregateVersion,
                          String eventType, String payload, String payloadRef, OffsetDateTime recordedAt,
                          DeliveryState state, int attempts, OffsetDateTime dueAt, long leaseVersion,
                          OffsetDateTime deliveredAt, String previousVersions) {

    /** The columns of a recorded row, in the order {@code INSERT ... SELECT} bulk loads give them. */
    public static final String COLUMNS = "event_id, aggregate_type, aggregate_id, aggregate_version, event_type,"
            + " schema_version, payload, payload_ref, created_at, state, attempts, next_attempt_at, lease_version,"
            + " delivered_at";

    /** A pending event with an empty JSON body, never tried, recorded and due at the database's time. */
    public static RecordedRow pending(String aggregateType, String aggregateId, long version, String eventType) {
        return new RecordedRow(UUID.randomUUID(), aggregateType, aggregateId, version, eventType, "{}", null, null,
                DeliveryState.PENDING, 0, null, 0, null, null);
    }

    public RecordedRow withId(UUID id) {
        return new RecordedRow(id, aggregateType, aggregateId, aggregateVersion, eventType, payload, payloadRef,
                recordedAt, state, attempts, dueAt, leaseVersion, deliveredAt, previousVersions);
    }

    /** The body as stored: an inline payload, a reference to an external one, or (to test the check) both or neither. */
    public RecordedRow withBody(String inline, String reference) {
        return new RecordedRow(eventId, aggregateType, aggregateId, aggregateVersion, eventType, inline, reference,
                recordedAt, state, attempts, dueAt, leaseVersion, deliveredAt, previousVersions);
    }

    public RecordedRow withPayload(String inline) {
        return withBody(inline, null);
    }

    public RecordedRow recordedAt(OffsetDateTime at) {
        return new RecordedRow(eventId, aggregateType, aggregateId, aggregateVersion, eventType, payload, payloadRef,
                at, state, attempts, dueAt, leaseVersion, deliveredAt, previousVersions);
    }

    public RecordedRow dueAt(OffsetDateTime at) {
        return new RecordedRow(eventId, aggregateType, aggregateId, aggregateVersion, eventType, payload, payloadRef,
                recordedAt, state, attempts, at, leaseVersion, deliveredAt, previousVersions);
    }

    /**
     * With the previous versions by type the recorder would have given it (R5.7, {@code OrderPlaced=1,OrderPaid=2});
     * a row left without them is one an older release recorded.
     */
    public RecordedRow withPreviousVersions(String text) {
        return new RecordedRow(eventId, aggregateType, aggregateId, aggregateVersion, eventType, payload, payloadRef,
                recordedAt, state, attempts, dueAt, leaseVersion, deliveredAt, text);
    }

    /** Tried this many times already (a failed send waits out its backoff with attempts above zero). */
    public RecordedRow attempts(int tried) {
        return new RecordedRow(eventId, aggregateType, aggregateId, aggregateVersion, eventType, payload, payloadRef,
                recordedAt, state, tried, dueAt, leaseVersion, deliveredAt, previousVersions);
    }

    /** Sent once and confirmed at {@code at}, under the first lease (one attempt, whatever {@link #attempts} said). */
    public RecordedRow delivered(OffsetDateTime at) {
        return new RecordedRow(eventId, aggregateType, aggregateId, aggregateVersion, eventType, payload, payloadRef,
                recordedAt, DeliveryState.DELIVERED, 1, dueAt, 1, at, previousVersions);
    }

    /** Tried once and parked as a deterministic failure under the first lease (one attempt, as above). */
    public RecordedRow parked() {
        return new RecordedRow(eventId, aggregateType, aggregateId, aggregateVersion, eventType, payload, payloadRef,
                recordedAt, DeliveryState.PARKED, 1, dueAt, 1, null, previousVersions);
    }

    /** Writes the row on {@code connection} (in its transaction, if one is open) and returns its event id. */
    public UUID insert(Connection connection) throws SQLException {
        Map<String, Object> set = new LinkedHashMap<>();
        set.put("event_id", eventId);
        set.put("aggregate_type", aggregateType);
        set.put("aggregate_id", aggregateId);
        set.put("aggregate_version", aggregateVersion);
        set.put("event_type", eventType);
        set.put("schema_version", 1);
        set.put("payload", payload);
        set.put("payload_ref", payloadRef);
        set.put("created_at", recordedAt);
        set.put("state", state.name());
        set.put("attempts", attempts);
        set.put("next_attempt_at", dueAt);
        set.put("lease_version", leaseVersion);
        set.put("delivered_at", deliveredAt);
        set.put("previous_versions", previousVersions);
        set.values().removeIf(Objects::isNull); // a column left out is NULL, or its default
        String placeholders = set.keySet().stream().map(column -> "?").collect(Collectors.joining(", "));
        String sql = "INSERT INTO outbox_event (" + String.join(", ", set.keySet())
                + (recordedAt == null ? ", created_at" : "") + ") VALUES (" + placeholders
                + (recordedAt == null ? ", CURRENT_TIMESTAMP(6)" : "") + ")";
        try (PreparedStatement insert = connection.prepareStatement(sql)) {
            int index = 0;
            for (Object value : set.values()) {
                insert.setObject(++index, value);
            }
            insert.executeUpdate();
        }
        return eventId;
    }
}
