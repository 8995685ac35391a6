package dev.outbox.internal.persistence;

import dev.outbox.EventId;
import dev.outbox.InboxedEvent;
import dev.outbox.Ordering;
import dev.outbox.TraceContext;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;

/**
 * The inbox's rows on the connection of one consumer transaction (R5.1, R5.7, R7.7): marks, the per-aggregate
 * high-water mark, events waiting for the versions before them, forks parked as conflicts and operators' skips.
 * Every statement of the resequencer is here; the decisions are {@code dev.outbox.internal.inbox.Resequencer}'s.
 * Plain SQL that H2, PostgreSQL and MariaDB run as it is, but for the inserts {@link Dialect} owns.
 */
public final class InboxStore {

    /**
     * An event waiting at a consumer for the versions before it, as it was received; {@code previousVersion} is the
     * version it waits for where that is not the one just before it (a consumer receiving only some types, R5.7).
     */
    public record WaitingRow(InboxedEvent event, String brokerId, Map<String, String> properties, int failures,
                             Long previousVersion) {

        /** The version this event waits for at its consumer. */
        public long waitsFor() {
            return previousVersion == null ? event.aggregateVersion() - 1 : previousVersion;
        }
    }

    /** A version the consumer already applied or holds, under which event id. */
    public record Conflict(String consumer, EventId eventId, String aggregateType, String aggregateId, long version,
                           EventId appliedEventId, String eventType, String brokerId) {
    }

    /** A consumer's gap as operators see it (R5.7): which versions are missing before which waiting ones. */
    public record Gap(String consumer, String aggregateType, String aggregateId, long highWater, long firstWaiting,
                      long waitingEvents, OffsetDateTime waitingSince, int failures) {
    }

    static final String GAPS = "SELECT w.consumer, w.aggregate_type, w.aggregate_id, COALESCE(MAX(h.high_water), 0)"
            + " AS high_water, MIN(w.aggregate_version) AS first_waiting, COUNT(*) AS events, MIN(w.waiting_since)"
            + " AS since, MAX(w.failures) AS failures FROM inbox_waiting w LEFT JOIN inbox_high_water h"
            + " ON h.consumer = w.consumer AND h.aggregate_type = w.aggregate_type AND h.aggregate_id = w.aggregate_id"
            + " GROUP BY w.consumer, w.aggregate_type, w.aggregate_id ORDER BY MIN(w.waiting_since)"
            + " FETCH FIRST ? ROWS ONLY";
    static final String CONFLICTS = "SELECT consumer, event_id, aggregate_type, aggregate_id, aggregate_version,"
            + " applied_event_id, event_type, broker_id FROM inbox_conflict ORDER BY found_at FETCH FIRST ? ROWS ONLY";
    static final String HIGH_WATER_LOCK = "SELECT high_water FROM inbox_high_water WHERE consumer = ?"
            + " AND aggregate_type = ? AND aggregate_id = ? FOR UPDATE";
    static final String HIGH_WATER_SET = "UPDATE inbox_high_water SET high_water = ? WHERE consumer = ?"
            + " AND aggregate_type = ? AND aggregate_id = ?";
    /** Where a consumer stands from marks kept from before its high-water row existed (schema V4 and earlier). */
    static final String LAST_MARKED = "SELECT MAX(aggregate_version) AS last_version FROM processed_event"
            + " WHERE consumer = ? AND aggregate_type = ? AND aggregate_id = ?";
    static final String MARKED_AT = "SELECT event_id FROM processed_event WHERE consumer = ? AND aggregate_type = ?"
            + " AND aggregate_id = ? AND aggregate_version = ?";
    public static final int WAITING_PAGE = 50;
    static final String WAITING_FROM = "SELECT event_id, aggregate_version, event_type, schema_version, ordering,"
            + " payload, properties, trace_parent, trace_state, broker_id, failures, previous_version FROM inbox_waiting"
            + " WHERE consumer = ? AND aggregate_type = ? AND aggregate_id = ? AND aggregate_version >= ?"
            + " ORDER BY aggregate_version FETCH FIRST " + WAITING_PAGE + " ROWS ONLY";
    static final String WAITING_INSERT = "INSERT INTO inbox_waiting (consumer, event_id, aggregate_type, aggregate_id,"
            + " aggregate_version, event_type, schema_version, ordering, payload, properties, trace_parent, trace_state,"
            + " broker_id, previous_version, waiting_since)"
            + " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, CURRENT_TIMESTAMP(6))";
    static final String WAITING_DELETE = "DELETE FROM inbox_waiting WHERE consumer = ? AND event_id = ?";
    static final String WAITING_FAILED = "UPDATE inbox_waiting SET failures = failures + 1, last_error_class = ?"
            + " WHERE consumer = ? AND event_id = ?";
    /** How often a consumer's sweep tries a waiting event whose change failed in its turn before leaving it. */
    public static final int RELEASE_TRIES = 10;
    /**
     * Aggregates whose first waiting event can go on (everything it waits for is passed): a skip or a failed release
     * left them ready. Only the first one counts, as the release goes in version order (a later one that could go
     * on alone waits behind it).
     */
    static final String READY = "SELECT w.aggregate_type, w.aggregate_id FROM inbox_waiting w JOIN inbox_high_water h"
            + " ON h.consumer = w.consumer AND h.aggregate_type = w.aggregate_type AND h.aggregate_id = w.aggregate_id"
            + " WHERE w.consumer = ? AND w.aggregate_version > h.high_water"
            + " AND COALESCE(w.previous_version, w.aggregate_version - 1) <= h.high_water AND w.failures < "
            + RELEASE_TRIES + " AND NOT EXISTS (SELECT 1 FROM inbox_waiting f WHERE f.consumer = w.consumer"
            + " AND f.aggregate_type = w.aggregate_type AND f.aggregate_id = w.aggregate_id"
            + " AND f.aggregate_version > h.high_water AND f.aggregate_version < w.aggregate_version)"
            + " ORDER BY w.waiting_since FETCH FIRST ? ROWS ONLY";
    /** A consumer's longest-waiting events of one type, with the database's clock to measure how long (R5.7). */
    static final String WAITING_OLDEST_OF_TYPE = "SELECT aggregate_type, aggregate_id, aggregate_version, waiting_since,"
            + " CURRENT_TIMESTAMP(6) AS db_now FROM inbox_waiting WHERE consumer = ? AND event_type = ?"
            + " ORDER BY waiting_since FETCH FIRST ? ROWS ONLY";
    /** The gap report (R5.7): events waiting per consumer and the oldest, by the database's clock. */
    public static final String WAITING_BY_CONSUMER = "SELECT consumer, COUNT(*) AS events, MIN(waiting_since) AS oldest"
            + " FROM inbox_waiting GROUP BY consumer";
    public static final String CONFLICTS_BY_CONSUMER = "SELECT consumer, COUNT(*) AS events FROM inbox_conflict"
            + " GROUP BY consumer";
    static final String CONFLICT_EXISTS = "SELECT 1 FROM inbox_conflict WHERE consumer = ? AND event_id = ?";
    static final String CONFLICT_INSERT = "INSERT INTO inbox_conflict (consumer, event_id, aggregate_type,"
            + " aggregate_id, aggregate_version, applied_event_id, event_type, broker_id, found_at)"
            + " VALUES (?, ?, ?, ?, ?, ?, ?, ?, CURRENT_TIMESTAMP(6))";
    static final String SKIPPED_AT = "SELECT skipped_by FROM inbox_skip WHERE consumer = ? AND aggregate_type = ?"
            + " AND aggregate_id = ? AND from_version <= ? AND to_version >= ?";
    static final String SKIP_INSERT = "INSERT INTO inbox_skip (consumer, aggregate_type, aggregate_id, from_version,"
            + " to_version, skipped_by, reason, skipped_at) VALUES (?, ?, ?, ?, ?, ?, ?, CURRENT_TIMESTAMP(6))";

    private final Connection connection;
    private final Dialect dialect;

    public InboxStore(Connection connection, Dialect dialect) {
        this.connection = connection;
        this.dialect = dialect;
    }

    /**
     * The inbox mark (R5.1); false when the consumer has one for this event already. {@code previousVersion}: the
     * version the event followed where that is not the one just before it (R5.7), else null.
     */
    public boolean mark(String consumer, InboxedEvent event, Long previousVersion, OffsetDateTime now,
                        OffsetDateTime retainUntil) throws SQLException {
        return dialect.markProcessed(connection, consumer, event.eventId().value(), event.aggregateType(),
                event.aggregateId(), event.aggregateVersion(), previousVersion, now, retainUntil);
    }

    public void countDuplicate(String consumer, EventId eventId) throws SQLException {
        update(InboxMarks.INBOX_COUNT_DUPLICATE, consumer, eventId.value());
    }

    /**
     * The consumer's high-water mark of the aggregate, its row locked until the transaction ends, so the deliveries
     * of one aggregate to one consumer are decided one after the other on every server. Created where missing,
     * from the marks kept from before the row existed (schema V4 and earlier), else 0.
     */
    public long lockHighWater(String consumer, String aggregateType, String aggregateId) throws SQLException {
        Long locked = readHighWater(consumer, aggregateType, aggregateId);
        if (locked != null) {
            return locked;
        }
        long lastMarked;
        try (PreparedStatement select = connection.prepareStatement(LAST_MARKED)) {
            bind(select, consumer, aggregateType, aggregateId);
            try (ResultSet rs = select.executeQuery()) {
                rs.next();
                lastMarked = rs.getLong("last_version");
            }
        }
        dialect.startHighWater(connection, consumer, aggregateType, aggregateId, lastMarked);
        return readHighWater(consumer, aggregateType, aggregateId);
    }

    private Long readHighWater(String consumer, String aggregateType, String aggregateId) throws SQLException {
        try (PreparedStatement select = connection.prepareStatement(HIGH_WATER_LOCK)) {
            bind(select, consumer, aggregateType, aggregateId);
            try (ResultSet rs = select.executeQuery()) {
                return rs.next() ? rs.getLong("high_water") : null;
            }
        }
    }

    /**
     * Moves the high-water mark from {@code from} over every version marked in a row above it whose predecessor is
     * passed (independent events applied ahead of their turn count once the versions before them are in; at a
     * consumer receiving only some types, the versions between are of other types) and returns where it stops.
     */
    public long advanceHighWater(String consumer, String aggregateType, String aggregateId, long from)
            throws SQLException {
        return advanceHighWater(consumer, aggregateType, aggregateId, from, Long.MAX_VALUE);
    }

    /**
     * The same, stopping below {@code below}: the version of an event that still waits, which the mark must never
     * pass (a mark beyond it, of an independent event applied on a header that knew less, would let it).
     */
    public long advanceHighWater(String consumer, String aggregateType, String aggregateId, long from, long below)
            throws SQLException {
        long highWater = from;
        try (PreparedStatement marked = connection.prepareStatement(InboxMarks.MARKED_ABOVE)) {
            boolean more = true;
            while (more) { // a page at a time: a long run of marks is walked to its end
                int rows = 0;
                bind(marked, consumer, aggregateType, aggregateId, highWater);
                try (ResultSet rs = marked.executeQuery()) {
                    while (rs.next()) {
                        long version = rs.getLong("aggregate_version");
                        long previous = rs.getLong("previous_version");
                        if ((rs.wasNull() ? version - 1 : previous) > highWater || version >= below) {
                            break;
                        }
                        highWater = version;
                        rows++;
                    }
                }
                more = rows == InboxMarks.MARKED_ABOVE_PAGE;
            }
        }
        return highWater;
    }

    public void setHighWater(String consumer, String aggregateType, String aggregateId, long highWater)
            throws SQLException {
        update(HIGH_WATER_SET, highWater, consumer, aggregateType, aggregateId);
    }

    /** The event ids the consumer marked at one version of the aggregate. */
    public List<EventId> markedAt(String consumer, String aggregateType, String aggregateId, long version)
            throws SQLException {
        List<EventId> ids = new ArrayList<>(1);
        try (PreparedStatement select = connection.prepareStatement(MARKED_AT)) {
            bind(select, consumer, aggregateType, aggregateId, version);
            try (ResultSet rs = select.executeQuery()) {
                while (rs.next()) {
                    ids.add(new EventId(rs.getObject("event_id", UUID.class)));
                }
            }
        }
        return ids;
    }

    /** The waiting events of the aggregate from {@code version} up, lowest first, one page of them. */
    public List<WaitingRow> waitingFrom(String consumer, String aggregateType, String aggregateId, long version)
            throws SQLException {
        List<WaitingRow> waiting = new ArrayList<>();
        try (PreparedStatement select = connection.prepareStatement(WAITING_FROM)) {
            bind(select, consumer, aggregateType, aggregateId, version);
            try (ResultSet rs = select.executeQuery()) {
                while (rs.next()) {
                    String parent = rs.getString("trace_parent");
                    InboxedEvent event = new InboxedEvent(new EventId(rs.getObject("event_id", UUID.class)),
                            rs.getString("event_type"), aggregateType, aggregateId, rs.getLong("aggregate_version"),
                            (Integer) rs.getObject("schema_version", Integer.class),
                            Ordering.ofHeader(rs.getString("ordering")), rs.getString("payload"),
                            parent == null ? null
                                    : TraceContext.read(parent, rs.getString("trace_state")).orElse(null));
                    long previous = rs.getLong("previous_version");
                    Long previousVersion = rs.wasNull() ? null : previous;
                    waiting.add(new WaitingRow(event, rs.getString("broker_id"),
                            decode(rs.getString("properties")), rs.getInt("failures"), previousVersion));
                }
            }
        }
        return waiting;
    }

    /**
     * Stores an early event of a strict type until the versions before it are applied (R5.7); {@code previousVersion}
     * as for {@link #mark}.
     */
    public void startWaiting(String consumer, InboxedEvent event, String brokerId, Map<String, String> properties,
                             Long previousVersion) throws SQLException {
        try (PreparedStatement insert = connection.prepareStatement(WAITING_INSERT)) {
            insert.setString(1, consumer);
            insert.setObject(2, event.eventId().value());
            insert.setString(3, event.aggregateType());
            insert.setString(4, event.aggregateId());
            insert.setLong(5, event.aggregateVersion());
            insert.setString(6, event.eventType());
            if (event.schemaVersion() == null) {
                insert.setNull(7, Types.INTEGER);
            } else {
                insert.setInt(7, event.schemaVersion());
            }
            insert.setString(8, event.ordering().header());
            insert.setString(9, event.payload());
            insert.setString(10, encode(properties));
            insert.setString(11, event.traceContext().map(TraceContext::traceParent).orElse(null));
            insert.setString(12, event.traceContext().map(TraceContext::traceState).orElse(null));
            insert.setString(13, brokerId);
            if (previousVersion == null) {
                insert.setNull(14, Types.BIGINT);
            } else {
                insert.setLong(14, previousVersion);
            }
            insert.executeUpdate();
        }
    }

    public void endWaiting(String consumer, EventId eventId) throws SQLException {
        update(WAITING_DELETE, consumer, eventId.value());
    }

    /** A waiting event whose change failed when its turn came; its own transaction, as the release rolled back. */
    public void waitingFailed(String consumer, EventId eventId, String errorClass) throws SQLException {
        update(WAITING_FAILED, errorClass, consumer, eventId.value());
    }

    /** Aggregates of the consumer whose next version is waiting and has not failed too often: ready to go on. */
    public List<String[]> ready(String consumer, int limit) throws SQLException {
        List<String[]> ready = new ArrayList<>();
        try (PreparedStatement select = connection.prepareStatement(READY)) {
            select.setString(1, consumer);
            select.setInt(2, limit);
            try (ResultSet rs = select.executeQuery()) {
                while (rs.next()) {
                    ready.add(new String[] {rs.getString("aggregate_type"), rs.getString("aggregate_id")});
                }
            }
        }
        return ready;
    }

    /** A waiting event's aggregate and version, and how long it has waited by the database's clock. */
    public record Waited(String aggregateType, String aggregateId, long version, Duration waited) {
    }

    /** The consumer's longest-waiting events of one type, the longest first. */
    public List<Waited> longestWaiting(String consumer, String eventType, int limit) throws SQLException {
        List<Waited> waited = new ArrayList<>();
        try (PreparedStatement select = connection.prepareStatement(WAITING_OLDEST_OF_TYPE)) {
            bind(select, consumer, eventType, limit);
            try (ResultSet rs = select.executeQuery()) {
                while (rs.next()) {
                    waited.add(new Waited(rs.getString("aggregate_type"), rs.getString("aggregate_id"),
                            rs.getLong("aggregate_version"), Duration.between(rs.getObject("waiting_since",
                            OffsetDateTime.class), rs.getObject("db_now", OffsetDateTime.class))));
                }
            }
        }
        return waited;
    }

    public boolean isConflict(String consumer, EventId eventId) throws SQLException {
        return exists(CONFLICT_EXISTS, consumer, eventId.value());
    }

    /** Parks a fork at the consumer (R7.7): never applied, never absorbed as a duplicate. */
    public void parkConflict(Conflict conflict) throws SQLException {
        update(CONFLICT_INSERT, conflict.consumer(), conflict.eventId().value(), conflict.aggregateType(),
                conflict.aggregateId(), conflict.version(),
                conflict.appliedEventId() == null ? null : conflict.appliedEventId().value(), conflict.eventType(),
                conflict.brokerId());
    }

    /** Who skipped this version at the consumer (an operator, or {@code outbox} for an advisory gap), if anyone. */
    public Optional<String> skippedBy(String consumer, String aggregateType, String aggregateId, long version)
            throws SQLException {
        try (PreparedStatement select = connection.prepareStatement(SKIPPED_AT)) {
            bind(select, consumer, aggregateType, aggregateId, version, version);
            try (ResultSet rs = select.executeQuery()) {
                return rs.next() ? Optional.of(rs.getString("skipped_by")) : Optional.empty();
            }
        }
    }

    /** An operator's audited decision to stop waiting for versions {@code from} to {@code to} (R5.7). */
    public void skip(String consumer, String aggregateType, String aggregateId, long from, long to, String by,
                     String reason) throws SQLException {
        update(SKIP_INSERT, consumer, aggregateType, aggregateId, from, to, by, reason);
    }

    private boolean exists(String sql, Object... values) throws SQLException {
        try (PreparedStatement select = connection.prepareStatement(sql)) {
            bind(select, values);
            try (ResultSet rs = select.executeQuery()) {
                return rs.next();
            }
        }
    }

    private void update(String sql, Object... values) throws SQLException {
        try (PreparedStatement statement = connection.prepareStatement(sql)) {
            bind(statement, values);
            statement.executeUpdate();
        }
    }

    private static void bind(PreparedStatement statement, Object... values) throws SQLException {
        for (int i = 0; i < values.length; i++) {
            Object value = values[i];
            if (value == null) {
                statement.setObject(i + 1, null); // untyped: PostgreSQL infers a uuid column's null, as others do
            } else if (value instanceof Long number) {
                statement.setLong(i + 1, number);
            } else if (value instanceof String text) {
                statement.setString(i + 1, text);
            } else {
                statement.setObject(i + 1, value);
            }
        }
    }

    /** Message properties as text: one {@code name=value} a line, backslash, newline and '=' escaped in names. */
    static String encode(Map<String, String> properties) {
        if (properties == null || properties.isEmpty()) {
            return null;
        }
        StringBuilder text = new StringBuilder();
        properties.forEach((name, value) -> text.append(escape(name).replace("=", "\\e")).append('=')
                .append(escape(value)).append('\n'));
        return text.toString();
    }

    static Map<String, String> decode(String text) {
        Map<String, String> properties = new LinkedHashMap<>();
        if (text == null) {
            return properties;
        }
        for (String line : text.split("\n")) {
            int equals = line.indexOf('=');
            if (equals > 0) {
                properties.put(unescape(line.substring(0, equals)), unescape(line.substring(equals + 1)));
            }
        }
        return properties;
    }

    private static String escape(String value) {
        return value == null ? "" : value.replace("\\", "\\\\").replace("\n", "\\n");
    }

    private static String unescape(String value) {
        StringBuilder out = new StringBuilder(value.length());
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (c == '\\' && i + 1 < value.length()) {
                char next = value.charAt(++i);
                out.append(next == 'n' ? '\n' : next == 'e' ? '=' : next);
            } else {
                out.append(c);
            }
        }
        return out.toString();
    }

    /** The consumers' gaps, oldest first (R5.7). */
    public List<Gap> gaps(int limit) throws SQLException {
        List<Gap> gaps = new ArrayList<>();
        try (PreparedStatement select = connection.prepareStatement(GAPS)) {
            select.setInt(1, limit);
            try (ResultSet rs = select.executeQuery()) {
                while (rs.next()) {
                    gaps.add(new Gap(rs.getString("consumer"), rs.getString("aggregate_type"),
                            rs.getString("aggregate_id"), rs.getLong("high_water"), rs.getLong("first_waiting"),
                            rs.getLong("events"), rs.getObject("since", OffsetDateTime.class), rs.getInt("failures")));
                }
            }
        }
        return gaps;
    }

    /** The forks parked at consumers, oldest first (R7.7). */
    public List<Conflict> conflicts(int limit) throws SQLException {
        List<Conflict> conflicts = new ArrayList<>();
        try (PreparedStatement select = connection.prepareStatement(CONFLICTS)) {
            select.setInt(1, limit);
            try (ResultSet rs = select.executeQuery()) {
                while (rs.next()) {
                    UUID applied = rs.getObject("applied_event_id", UUID.class);
                    conflicts.add(new Conflict(rs.getString("consumer"), new EventId(rs.getObject("event_id",
                            UUID.class)), rs.getString("aggregate_type"), rs.getString("aggregate_id"),
                            rs.getLong("aggregate_version"), applied == null ? null : new EventId(applied),
                            rs.getString("event_type"), rs.getString("broker_id")));
                }
            }
        }
        return conflicts;
    }
}
