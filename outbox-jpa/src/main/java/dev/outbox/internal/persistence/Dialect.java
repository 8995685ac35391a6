package dev.outbox.internal.persistence;

import dev.outbox.OutboxEvent;
import dev.outbox.internal.event.PreviousVersions;
import dev.outbox.spi.OutboundEvent;

import java.net.URI;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;

/**
 * Every SQL statement of the outbox, in one place per database: the schema scripts, the publisher's claim,
 * confirm, retry and park, and the inbox's insert. Three implementations: {@link H2Dialect} (the embedded
 * default, lease by compare-and-set), {@link PostgreSqlDialect} and {@link MariaDbDialect} (production,
 * {@code FOR UPDATE SKIP LOCKED}). The statements written once (OutboxRows, InboxMarks, ...) are SQL all three run.
 */
public interface Dialect {

    /**
     * Locks one person's replay requests until the caller's transaction ends, creating the person's row the first
     * time: a second request of theirs waits here and then counts the first one's events (R9.4).
     */
    default void lockRequester(Connection connection, String requester) throws SQLException {
        startRequester(connection, requester);
        try (PreparedStatement lock = connection.prepareStatement(ReplayRequests.REPLAY_REQUESTER_LOCK)) {
            lock.setString(1, requester);
            try (ResultSet rs = lock.executeQuery()) {
                if (!rs.next()) {
                    throw new SQLException("no outbox_replay_requester row for " + requester + " after inserting it");
                }
            }
        }
    }

    /** Inserts the requester's row unless it exists, without aborting the transaction when it does. */
    void startRequester(Connection connection, String requester) throws SQLException;

    /** The short name used in settings and in the script folder: {@code h2}, {@code postgresql} or {@code mariadb}. */
    String name();

    /**
     * Stops the start-up on a datasource set up to break a guarantee without any failure: one that would lose
     * commits it has acknowledged if the server process is killed (R1.2, the embedded H2 with a write delay), runs
     * another isolation level or shifts stored instants (MariaDB), or quotes row values in its exceptions (R6.3,
     * PostgreSQL's driver by default). Each refusal names the setting to change.
     */
    default void verifyDataSource(Connection connection, String dataSource) throws SQLException {
    }

    /**
     * Bounds how long a schema change on this connection waits for a table lock (R8.4): an {@code ALTER TABLE}
     * behind one open transaction on its table would queue, and every insert and claim on the table would queue
     * behind it. Undone by {@link #unlimitSchemaLockWait} before the connection goes back to the pool. The embedded
     * H2 (one server) waits as it always did.
     */
    default void limitSchemaLockWait(Connection connection, java.time.Duration wait) throws SQLException {
    }

    /** Gives the connection back its usual lock wait ({@link #limitSchemaLockWait}). */
    default void unlimitSchemaLockWait(Connection connection) throws SQLException {
    }

    /**
     * By schema version, a query that reads what that script adds last: it fails where the schema is older. Scripts
     * run in order, so the newest version a schema answers says how far it is. V1, V4 and V6 have none of their
     * own (a table V2's probe needs too, an index, a column default): a later version's answer implies them.
     */
    NavigableMap<Integer, String> SCHEMA_PROBES = Collections.unmodifiableNavigableMap(new TreeMap<>(Map.ofEntries(
            Map.entry(2, "SELECT effect_key FROM side_effect WHERE 1 = 0"),
            Map.entry(3, "SELECT publish_mode FROM outbox_event WHERE 1 = 0"),
            Map.entry(5, "SELECT item_no FROM outbox_replay_event WHERE 1 = 0"),
            Map.entry(7, "SELECT requester FROM outbox_replay_requester WHERE 1 = 0"),
            Map.entry(8, "SELECT parked_at FROM outbox_event WHERE 1 = 0"),
            Map.entry(9, "SELECT trace_state FROM outbox_event WHERE 1 = 0"),
            Map.entry(10, "SELECT reason FROM inbox_skip WHERE 1 = 0"),
            Map.entry(11, "SELECT previous_version FROM inbox_waiting WHERE 1 = 0"),
            Map.entry(12, "SELECT accepted_by FROM outbox_event WHERE 1 = 0"),
            Map.entry(13, "SELECT schema_version_before FROM outbox_content_change WHERE 1 = 0"))));

    /** Reads what the latest schema script adds: fails where the schema is older ({@link #schemaScripts}). */
    String LATEST_SCHEMA_PROBE = SCHEMA_PROBES.lastEntry().getValue();

    /** A script's version, from its Flyway-style name ({@code .../V8__parked_at.sql} is 8). */
    static int versionOf(String script) {
        String name = script.substring(script.lastIndexOf('/') + 1);
        return Integer.parseInt(name.substring(1, name.indexOf("__")));
    }

    /** The versioned schema scripts, oldest first, as class-path resources. */
    default List<String> schemaScripts() {
        String folder = "META-INF/outbox/sql/" + name() + "/";
        return List.of(folder + "V1__outbox_event_and_processed_event.sql",
                folder + "V2__inbox_versions_and_side_effects.sql",
                folder + "V3__audit_and_replay_requests.sql",
                folder + "V4__undelivered_versions_index.sql",
                folder + "V5__inbox_high_water_holds_and_replay_events.sql",
                folder + "V6__due_on_the_database_clock.sql",
                folder + "V7__replay_requesters.sql",
                folder + "V8__parked_at_and_waiting_replays.sql",
                folder + "V9__trace_context.sql",
                folder + "V10__inbox_waiting_conflicts_and_skips.sql",
                folder + "V11__previous_versions.sql",
                folder + "V12__accepted_by.sql",
                folder + "V13__content_change_requests.sql");
    }

    /**
     * Inserts a command's recorded events on the caller's connection ({@link OutboxRows#RECORD}): one statement for
     * one event, one JDBC batch for several, executed now so that a violated key fails the command (R3.1, R3.3).
     */
    default void record(Connection connection, List<PendingRow> rows) throws SQLException {
        List<PreviousVersions> previous = previousVersions(connection, rows);
        try (PreparedStatement insert = connection.prepareStatement(OutboxRows.RECORD)) {
            for (int i = 0; i < rows.size(); i++) {
                PendingRow row = rows.get(i);
                OutboxEvent event = row.event();
                insert.setObject(1, row.eventId().value());
                insert.setString(2, event.aggregateType());
                insert.setString(3, event.aggregateId());
                insert.setLong(4, event.aggregateVersion());
                insert.setString(5, event.eventType());
                insert.setInt(6, event.schemaVersion());
                insert.setString(7, event.payload());
                URI reference = event.payloadReference();
                insert.setString(8, reference == null ? null : reference.toString());
                insert.setObject(9, row.createdAt());
                insert.setString(10, row.publishMode());
                insert.setString(11, row.trace() == null ? null : row.trace().traceParent());
                insert.setString(12, row.trace() == null ? null : row.trace().traceState());
                // R5.7: empty on a first event, and where its earlier events were all cleaned up
                insert.setString(13, previous.get(i).text());
                if (rows.size() > 1) {
                    insert.addBatch();
                }
            }
            if (rows.size() == 1) {
                insert.executeUpdate();
            } else {
                insert.executeBatch();
            }
        }
    }

    /**
     * R5.7: each row's {@link PreviousVersions}, from the event just before it: recorded by the same command (no
     * statement; the command's rows are taken in version order, whatever order it recorded them in), else that row
     * read by the aggregate's unique key. Where that row is gone (cleaned up) or carries none (recorded before schema
     * V11, too many types, or changed by hand), the aggregate's remaining rows are read by type instead.
     */
    private static List<PreviousVersions> previousVersions(Connection connection, List<PendingRow> rows)
            throws SQLException {
        List<PendingRow> inVersionOrder = new ArrayList<>(rows);
        inVersionOrder.sort(java.util.Comparator.comparingLong(row -> row.event().aggregateVersion()));
        Map<String, PreviousVersions> afterRecorded = new HashMap<>(); // "type/id@version" -> what its successor carries
        Map<PendingRow, PreviousVersions> previous = new java.util.IdentityHashMap<>();
        for (PendingRow row : inVersionOrder) {
            OutboxEvent event = row.event();
            String aggregate = event.aggregateType() + "/" + event.aggregateId() + "@";
            long version = event.aggregateVersion();
            PreviousVersions own = afterRecorded.get(aggregate + (version - 1));
            if (own == null) {
                own = version > 1 ? readPrevious(connection, event) : PreviousVersions.NONE;
            }
            previous.put(row, own);
            afterRecorded.put(aggregate + version, own.then(event.eventType(), version));
        }
        return rows.stream().map(previous::get).toList();
    }

    private static PreviousVersions readPrevious(Connection connection, OutboxEvent event) throws SQLException {
        try (PreparedStatement select = connection.prepareStatement(OutboxRows.PREVIOUS_OF)) {
            select.setString(1, event.aggregateType());
            select.setString(2, event.aggregateId());
            select.setLong(3, event.aggregateVersion() - 1);
            try (ResultSet rs = select.executeQuery()) {
                if (rs.next()) {
                    String type = rs.getString("event_type");
                    String text = rs.getString("previous_versions");
                    try {
                        PreviousVersions before = text == null ? null : PreviousVersions.parse(text);
                        // a version at or after the row's own is damaged text (changed by hand): read by type below
                        if (before != null && before.latest().values().stream()
                                .allMatch(v -> v < event.aggregateVersion() - 1)) {
                            return before.then(type, event.aggregateVersion() - 1);
                        }
                    } catch (IllegalArgumentException damaged) {
                        // changed by hand: read by type below
                    }
                }
            }
        }
        Map<String, Long> latest = new HashMap<>();
        try (PreparedStatement select = connection.prepareStatement(OutboxRows.LATEST_BY_TYPE_BELOW)) {
            select.setString(1, event.aggregateType());
            select.setString(2, event.aggregateId());
            select.setLong(3, event.aggregateVersion());
            try (ResultSet rs = select.executeQuery()) {
                while (rs.next()) {
                    latest.put(rs.getString("event_type"), rs.getLong("latest"));
                }
            }
        }
        return new PreviousVersions(latest);
    }

    /**
     * Claims due rows in the caller's (short) transaction, on the database's {@link #clock}: sets the claimer and a
     * lease, bumps the lease version
     * and the attempt count, and moves {@code next_attempt_at} to the lease end, so a claimer that dies leaves a
     * row that is due again when its lease runs out (R4.3). Returns the claimed rows.
     */
    List<OutboundEvent> claim(Connection connection, ClaimRequest request) throws SQLException;

    /**
     * Marks delivered the events whose claim is still ours (same claimer, same lease version, still pending) and
     * returns their ids; an id missing from the answer lost its lease to another claimer (R4.2). This default
     * runs {@link #CONFIRM} once per event as one JDBC batch; a dialect may do it in one statement.
     */
    default Set<UUID> confirm(Connection connection, String claimer, OffsetDateTime now, List<Delivery> deliveries)
            throws SQLException {
        Set<UUID> confirmed = new HashSet<>();
        if (deliveries.isEmpty()) {
            return confirmed;
        }
        try (PreparedStatement confirm = connection.prepareStatement(OutboxRows.CONFIRM)) {
            for (Delivery delivery : deliveries) {
                confirm.setObject(1, now);
                confirm.setString(2, delivery.brokerMessageId());
                if (delivery.partition() == null) {
                    confirm.setNull(3, Types.INTEGER);
                } else {
                    confirm.setInt(3, delivery.partition());
                }
                if (delivery.offset() == null) {
                    confirm.setNull(4, Types.BIGINT);
                } else {
                    confirm.setLong(4, delivery.offset());
                }
                confirm.setObject(5, delivery.eventId());
                confirm.setString(6, claimer);
                confirm.setLong(7, delivery.leaseVersion());
                confirm.addBatch();
            }
            int[] counts = confirm.executeBatch();
            for (int i = 0; i < counts.length; i++) {
                // Only an explicit 0 means the claim was no longer ours: the statement is conditional.
                if (counts[i] != 0) {
                    confirmed.add(deliveries.get(i).eventId());
                }
            }
        }
        return confirmed;
    }

    /**
     * Inserts the inbox mark in the consumer's transaction; true when this is the first time the consumer sees
     * the event, false for a duplicate (R5.1). Must not abort the transaction on a duplicate.
     */
    boolean markProcessed(Connection connection, String consumer, UUID eventId, String aggregateType,
                          String aggregateId, Long aggregateVersion, Long previousVersion, OffsetDateTime now,
                          OffsetDateTime retainUntil) throws SQLException;

    /** The mark of an event that follows the version just before it (every consumer receiving all types). */
    default boolean markProcessed(Connection connection, String consumer, UUID eventId, String aggregateType,
                                  String aggregateId, Long aggregateVersion, OffsetDateTime now,
                                  OffsetDateTime retainUntil) throws SQLException {
        return markProcessed(connection, consumer, eventId, aggregateType, aggregateId, aggregateVersion, null, now,
                retainUntil);
    }

    /** Creates a consumer's high-water row for an aggregate unless it exists; never aborts the transaction. */
    void startHighWater(Connection connection, String consumer, String aggregateType, String aggregateId,
                        long highWater) throws SQLException;

    /**
     * The dialect for a setting ({@code h2}, {@code postgresql}) or, for {@code auto}, for the JDBC driver's
     * product name.
     */
    static Dialect of(String setting, String productName) {
        String key = "auto".equals(setting) ? productName.toLowerCase(Locale.ROOT) : setting;
        if (key.startsWith("h2")) {
            return new H2Dialect();
        }
        if (key.startsWith("postgresql")) {
            return new PostgreSqlDialect();
        }
        if (key.startsWith("mariadb")) {
            return new MariaDbDialect();
        }
        throw new IllegalStateException("the outbox has no SQL dialect for database '" + productName
                + "'; supported: H2, PostgreSQL, MariaDB (setting outbox.dialect)");
    }
}
