package dev.outbox.internal.schema;

import dev.outbox.EventId;
import dev.outbox.OutboxEvent;
import dev.outbox.spi.OutboundEvent;

import java.net.URI;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.UUID;

/**
 * Every SQL statement of the outbox, in one place per database: the schema scripts, the publisher's claim,
 * confirm, retry and park, and the inbox's insert. Two implementations: {@link H2Dialect} (the embedded
 * default, lease by compare-and-set) and {@link PostgreSqlDialect} (production, {@code FOR UPDATE SKIP LOCKED}).
 * The statements written here once are plain SQL that both run as they are.
 */
public interface Dialect {

    /** The columns a claim returns, in {@link #readClaimed} order. */
    String CLAIMED_COLUMNS = "event_id, aggregate_type, aggregate_id, aggregate_version, event_type, schema_version,"
            + " payload, payload_ref, created_at, attempts, lease_version, publish_mode";

    /** R4.2: confirm only while the claim is ours: same claimer, same lease version, still pending. */
    String CLAIM_STILL_OURS = " WHERE event_id = ? AND claimed_by = ? AND lease_version = ? AND state = 'PENDING'";

    /** claimed_by stays on a delivered row: which instance delivered it, for diagnosis. */
    String CONFIRM = "UPDATE outbox_event SET state = 'DELIVERED', delivered_at = ?, broker_message_id = ?,"
            + " broker_partition = ?, broker_offset = ?, lease_until = NULL, last_error_class = NULL"
            + CLAIM_STILL_OURS;

    /** R4.4: the row stays; the next attempt waits for the backoff. */
    String RETRY_LATER = "UPDATE outbox_event SET next_attempt_at = ?, last_error_class = ?, claimed_by = NULL,"
            + " lease_until = NULL" + CLAIM_STILL_OURS;

    /**
     * A claimed event that was never handed to a broker (held behind an earlier version of its run, or the lease
     * ran short): the claim's attempt is given back and it is due again at once; its last error class stays.
     */
    String RETRY_NOT_SENT = "UPDATE outbox_event SET next_attempt_at = ?, attempts = attempts - 1, claimed_by = NULL,"
            + " lease_until = NULL" + CLAIM_STILL_OURS;

    /** R4.5: parked at once, with the failure class as evidence. */
    String PARK = "UPDATE outbox_event SET state = 'PARKED', last_error_class = ?, claimed_by = NULL, lease_until = NULL"
            + CLAIM_STILL_OURS;

    String INBOX_COUNT_DUPLICATE = "UPDATE processed_event SET duplicates = duplicates + 1"
            + " WHERE consumer = ? AND event_id = ?";

    // The inbox's version gate (R5.7): one high-water row per consumer and aggregate, never deleted by retention,
    // and the strict events a consumer holds, since when on the database's clock.

    /** Locks the row, so two deliveries of one aggregate to one consumer pass the gate one after the other. */
    String HIGH_WATER_LOCK = "SELECT high_water FROM inbox_high_water WHERE consumer = ? AND aggregate_type = ?"
            + " AND aggregate_id = ? FOR UPDATE";

    String HIGH_WATER_MOVE = "UPDATE inbox_high_water SET high_water = ? WHERE consumer = ? AND aggregate_type = ?"
            + " AND aggregate_id = ? AND high_water < ?";

    int MARKED_ABOVE_PAGE = 1000;

    /** The versions above the high-water mark a consumer has marked already (applied out of order), lowest first. */
    String MARKED_ABOVE = "SELECT aggregate_version FROM processed_event WHERE consumer = ? AND aggregate_type = ?"
            + " AND aggregate_id = ? AND aggregate_version > ? ORDER BY aggregate_version FETCH FIRST "
            + MARKED_ABOVE_PAGE + " ROWS ONLY";

    String HOLD_SINCE = "SELECT held_since, CURRENT_TIMESTAMP FROM inbox_hold WHERE consumer = ? AND event_id = ?";

    String HOLD_END = "DELETE FROM inbox_hold WHERE consumer = ? AND event_id = ?";

    /** Holds whose event never came back (the broker gave it up), past the inbox retention, in small batches. */
    String DELETE_EXPIRED_HOLDS_BATCH = "DELETE FROM inbox_hold WHERE held_since < ? AND (consumer, event_id) IN"
            + " (SELECT consumer, event_id FROM inbox_hold WHERE held_since < ? ORDER BY held_since"
            + " FETCH FIRST ? ROWS ONLY)";

    /**
     * R5.7: the highest version of one aggregate a consumer has processed, other than this event: where a consumer
     * has marks from before the high-water rows existed, its high-water mark starts there.
     */
    String INBOX_LAST_VERSION = "SELECT MAX(aggregate_version) FROM processed_event"
            + " WHERE consumer = ? AND aggregate_type = ? AND aggregate_id = ? AND event_id <> ?";

    /**
     * R8.1: one small batch of delivered rows older than the cut-off, oldest first by (delivered_at, event_id),
     * on the delivered-rows index. Repeated up to a per-run limit, never one long DELETE. The outer WHERE repeats
     * the sub-query's condition: a row that waited for a lock is re-checked as it is now, and a replay that put it
     * back to pending meanwhile keeps it (R9.3); the sub-query's choice alone is a stale snapshot.
     */
    String DELETE_DELIVERED_BATCH = "DELETE FROM outbox_event WHERE state = 'DELIVERED' AND delivered_at < ?"
            + " AND event_id IN (SELECT event_id FROM outbox_event WHERE state = 'DELIVERED' AND delivered_at < ?"
            + " ORDER BY delivered_at, event_id FETCH FIRST ? ROWS ONLY)";

    /**
     * R5.6: one small batch of inbox marks past their retention, re-checked as they are when locked. A mark above
     * its consumer's high-water mark stays: it is the only record that an independent event applied ahead of its
     * turn was applied (the protocol checker found duplicates re-applied without it). {@link #EXPIRED_ABOVE_HIGH_WATER}
     * moves the mark over such marks first, once they are past retention.
     */
    String DELETE_PROCESSED_BATCH = "DELETE FROM processed_event WHERE retain_until < ? AND (consumer, event_id) IN"
            + " (SELECT p.consumer, p.event_id FROM processed_event p WHERE p.retain_until < ? AND NOT EXISTS"
            + " (SELECT 1 FROM inbox_high_water h WHERE h.consumer = p.consumer AND h.aggregate_type = p.aggregate_type"
            + " AND h.aggregate_id = p.aggregate_id AND p.aggregate_version > h.high_water)"
            + " ORDER BY p.retain_until FETCH FIRST ? ROWS ONLY)";

    /**
     * R5.4: settled side-effect records (SUCCEEDED, FAILED) past the inbox retention, in small batches. A STARTED one
     * stays whatever its age: its outcome is unknown until someone reconciles it with the external service.
     */
    String DELETE_SETTLED_SIDE_EFFECTS_BATCH = "DELETE FROM side_effect WHERE state <> 'STARTED' AND updated_at < ?"
            + " AND (consumer, effect_key) IN (SELECT consumer, effect_key FROM side_effect WHERE state <> 'STARTED'"
            + " AND updated_at < ? ORDER BY updated_at FETCH FIRST ? ROWS ONLY)";

    /**
     * R6.1, R6.2: the backlog per event type and last error class (null: not failed yet), with its oldest
     * event. Reads pending rows only, on the pending-rows index: never the delivered history.
     */
    String PENDING_BY_TYPE = "SELECT event_type, last_error_class, COUNT(*), MIN(created_at) FROM outbox_event"
            + " WHERE state = 'PENDING' GROUP BY event_type, last_error_class";

    /** Parked rows per event type, on the parked-rows index. */
    String PARKED_BY_TYPE = "SELECT event_type, COUNT(*) FROM outbox_event WHERE state = 'PARKED' GROUP BY event_type";

    // Operations: parked-event repair (R6.6), replay (R9.2-R9.4) and their audit trail. Admin actions, not hot
    // paths: plain SQL that both databases run as it is.

    /** One stored event, whole, for an operator: {@link #EVENT_COLUMNS} order. */
    String EVENT_COLUMNS = "event_id, aggregate_type, aggregate_id, aggregate_version, event_type, schema_version,"
            + " payload, payload_ref, created_at, state, attempts, last_error_class, delivered_at, broker_message_id";

    String EVENT_BY_ID = "SELECT " + EVENT_COLUMNS + " FROM outbox_event WHERE event_id = ?";

    /** R6.6: parked rows oldest first, on the parked-rows index; the payload is fetched per event, not listed. */
    String PARKED_PAGE = "SELECT event_id, aggregate_type, aggregate_id, aggregate_version, event_type, schema_version,"
            + " NULL, payload_ref, created_at, state, attempts, last_error_class, delivered_at, broker_message_id"
            + " FROM outbox_event WHERE state = 'PARKED' ORDER BY created_at, event_id FETCH FIRST ? ROWS ONLY";

    /** R6.6: a repair changes the body and schema version of a parked row only; its event id stays. */
    String FIX_PARKED = "UPDATE outbox_event SET payload = ?, payload_ref = ?, schema_version = ?"
            + " WHERE event_id = ? AND state = 'PARKED'";

    /** R6.6: back to pending with the same event id; attempts and the last error class stay as evidence. */
    String RESUME_PARKED = "UPDATE outbox_event SET state = 'PENDING', next_attempt_at = ?, claimed_by = NULL,"
            + " lease_until = NULL WHERE event_id = ? AND state = 'PARKED'";

    /**
     * R9.2: delivered events recorded in [from, to), optionally of one type, oldest first. A time-range replay is
     * a rare admin action: it may scan the table rather than cost every business insert another index.
     */
    String REPLAY_RANGE = "SELECT event_id, aggregate_type, event_type, state FROM outbox_event WHERE state = 'DELIVERED' AND created_at >= ?"
            + " AND created_at < ? AND (CAST(? AS VARCHAR(100)) IS NULL OR event_type = ?)"
            + " ORDER BY created_at, event_id FETCH FIRST ? ROWS ONLY";

    /**
     * R6.6, R9.4: the events parked with one error class, optionally of one type, oldest first, on the parked-rows
     * index: a bulk resume after a configuration error parked many at once.
     */
    String PARKED_WITH = "SELECT event_id, aggregate_type, event_type, state FROM outbox_event WHERE state = 'PARKED'"
            + " AND last_error_class = ? AND (CAST(? AS VARCHAR(100)) IS NULL OR event_type = ?)"
            + " ORDER BY created_at, event_id FETCH FIRST ? ROWS ONLY";

    /**
     * R9.3: the same row, the same event id, sent again; staggered next_attempt_at is the rate limit (R9.4). An
     * operator's replay is a real send, also of an event that was only shadowed while its old path sent it.
     */
    String REPLAY_ONE = "UPDATE outbox_event SET state = 'PENDING', next_attempt_at = ?, claimed_by = NULL,"
            + " lease_until = NULL, publish_mode = 'PUBLISH' WHERE event_id = ? AND state = 'DELIVERED'";

    /**
     * Which consumers already applied some events, where their inboxes share this database (a replay's dry run
     * shows them): one statement over an IN list of {@code count} ids.
     */
    static String consumersOf(int count) {
        return "SELECT consumer, COUNT(*) FROM processed_event WHERE event_id IN (" + placeholders(count)
                + ") GROUP BY consumer ORDER BY consumer";
    }

    /** External side effects recorded for some events (R5.4): a replay's dry run warns about them. */
    static String sideEffectsOf(int count) {
        return "SELECT consumer, effect, state, COUNT(*) FROM side_effect WHERE event_id IN (" + placeholders(count)
                + ") GROUP BY consumer, effect, state ORDER BY consumer, effect, state";
    }

    private static String placeholders(int count) {
        return String.join(", ", java.util.Collections.nCopies(count, "?"));
    }

    String AUDIT_INSERT = "INSERT INTO outbox_audit (audit_id, at, actor, action, event_id, request_id, detail)"
            + " VALUES (?, ?, ?, ?, ?, ?, ?)";

    String AUDIT_RECENT = "SELECT audit_id, at, actor, action, event_id, request_id, detail FROM outbox_audit"
            + " WHERE (CAST(? AS UUID) IS NULL OR event_id = ?) ORDER BY at DESC, audit_id FETCH FIRST ? ROWS ONLY";

    String REPLAY_REQUEST_INSERT = "INSERT INTO outbox_replay_request (request_id, requested_at, requested_by, reason,"
            + " selection, event_count, state) VALUES (?, ?, ?, ?, ?, ?, 'AWAITING_APPROVAL')";

    String REPLAY_REQUEST_BY_ID = "SELECT request_id, requested_at, requested_by, reason, selection, event_count,"
            + " state, decided_by, decided_at FROM outbox_replay_request WHERE request_id = ?";

    /** R9.4: the exact events of a request, stored with it, so an approval replays these and nothing else. */
    String REPLAY_REQUEST_EVENT_INSERT = "INSERT INTO outbox_replay_event (request_id, item_no, event_id) VALUES (?, ?, ?)";

    String REPLAY_REQUEST_EVENTS = "SELECT event_id FROM outbox_replay_event WHERE request_id = ? ORDER BY item_no";

    /**
     * R9.4: how many events one person replayed without a second approver since a time: replays split into small
     * requests count together against the approval threshold.
     */
    String REPLAYED_UNAPPROVED_SINCE = "SELECT COALESCE(SUM(event_count), 0) FROM outbox_replay_request"
            + " WHERE requested_by = ? AND requested_at >= ? AND state = 'EXECUTED' AND decided_by = requested_by";

    /** R9.4: serialises one person's replay requests until the transaction ends ({@link #lockRequester}). */
    String REPLAY_REQUESTER_LOCK = "SELECT requester FROM outbox_replay_requester WHERE requester = ? FOR UPDATE";

    /**
     * Locks one person's replay requests until the caller's transaction ends, creating the person's row the first
     * time: a second request of theirs waits here and then counts the first one's events (R9.4).
     */
    default void lockRequester(Connection connection, String requester) throws SQLException {
        startRequester(connection, requester);
        try (PreparedStatement lock = connection.prepareStatement(REPLAY_REQUESTER_LOCK)) {
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

    /** Decides a waiting request once: a second approval of the same request changes nothing. */
    String REPLAY_REQUEST_DECIDE = "UPDATE outbox_replay_request SET state = ?, decided_by = ?, decided_at = ?"
            + " WHERE request_id = ? AND state = 'AWAITING_APPROVAL'";

    /** The short name used in settings and in the script folder: {@code h2} or {@code postgresql}. */
    String name();

    /**
     * Stops the start-up when the database would lose commits it has acknowledged if the server process is
     * killed (R1.2: the business change and its events must survive together). Only the embedded default can be
     * set up that way; a client-server database answers to its own durability settings.
     */
    default void verifyDurable(Connection connection, String dataSource) throws SQLException {
    }

    /** Reads the table the latest schema script creates: fails where the schema is older ({@link #schemaScripts}). */
    String LATEST_SCHEMA_PROBE = "SELECT requester FROM outbox_replay_requester WHERE 1 = 0";

    /** The versioned schema scripts, oldest first, as class-path resources. */
    default List<String> schemaScripts() {
        String folder = "META-INF/outbox/sql/" + name() + "/";
        return List.of(folder + "V1__outbox_event_and_processed_event.sql",
                folder + "V2__inbox_versions_and_side_effects.sql",
                folder + "V3__audit_and_replay_requests.sql",
                folder + "V4__undelivered_versions_index.sql",
                folder + "V5__inbox_high_water_holds_and_replay_events.sql",
                folder + "V6__due_on_the_database_clock.sql",
                folder + "V7__replay_requesters.sql");
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
        try (PreparedStatement confirm = connection.prepareStatement(CONFIRM)) {
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
                          String aggregateId, Long aggregateVersion, OffsetDateTime now,
                          OffsetDateTime retainUntil) throws SQLException;

    /**
     * The database's time now: leases, due checks, retries and confirm times are all read on this one clock, never
     * on a server's (servers' clocks differ; R4.3's lease must mean the same to every claimer).
     */
    static OffsetDateTime clock(Connection connection) throws SQLException {
        try (PreparedStatement select = connection.prepareStatement("SELECT CURRENT_TIMESTAMP");
             ResultSet rs = select.executeQuery()) {
            rs.next();
            return rs.getObject(1, OffsetDateTime.class);
        }
    }

    /** Creates a consumer's high-water row for an aggregate unless it exists; never aborts the transaction. */
    void startHighWater(Connection connection, String consumer, String aggregateType, String aggregateId,
                        long highWater) throws SQLException;

    /** Starts a consumer's hold of an event at the database's time unless it holds it already. */
    void startHold(Connection connection, String consumer, UUID eventId) throws SQLException;

    /** Binds the candidate filter's parameters from {@code index} on; returns the next free index. */
    static int bindCandidates(PreparedStatement statement, int index, ClaimRequest request, OffsetDateTime now)
            throws SQLException {
        statement.setObject(index++, now);
        for (String type : request.exceptions()) {
            statement.setString(index++, type);
        }
        statement.setInt(index++, request.limit());
        return index;
    }

    /**
     * The undelivered versions after a claim's strict heads, lowest first per aggregate, for {@link #withRuns}: at
     * most {@code limit} rows, on the undelivered-versions index.
     */
    static String followersOf(int heads) {
        return "SELECT f.event_id, f.aggregate_type, f.aggregate_id, f.state, f.next_attempt_at, f.event_type"
                + " FROM outbox_event f"
                + " JOIN outbox_event h ON h.aggregate_type = f.aggregate_type AND h.aggregate_id = f.aggregate_id"
                + " AND f.aggregate_version > h.aggregate_version WHERE h.event_id IN (" + placeholders(heads) + ")"
                + " AND f.state <> 'DELIVERED' ORDER BY f.aggregate_type, f.aggregate_id, f.aggregate_version"
                + " FETCH FIRST ? ROWS ONLY";
    }

    /** Takes a follower into the claim of its head: still pending and due, as the walk saw it. */
    String TAKE_FOLLOWER = "UPDATE outbox_event SET claimed_by = ?, lease_version = lease_version + 1,"
            + " lease_until = ?, next_attempt_at = ?, attempts = attempts + 1"
            + " WHERE event_id = ? AND state = 'PENDING' AND next_attempt_at <= ?";

    /**
     * Issue 16 item 10: a claim that holds the head of a strict aggregate (its lowest undelivered version) also
     * takes the versions after it while they are pending and due, up to the batch limit, so a hot aggregate drains
     * a run per round trip instead of one version. No other claim can take them: a strict version is a candidate
     * only once every earlier one is delivered, and the head is leased to this claim. The run stops at the first
     * version that is parked, in backoff, leased or independent (R4.6); the sends stop it at its first failure
     * ({@link dev.outbox.internal.transport.StrictRuns}). Runs in the claim's transaction.
     */
    static List<OutboundEvent> withRuns(Connection connection, ClaimRequest request, List<OutboundEvent> heads,
                                        OffsetDateTime now, OffsetDateTime leaseUntil) throws SQLException {
        int room = request.limit() - heads.size();
        List<UUID> strictHeads = heads.stream().filter(e -> e.ordering() == dev.outbox.Ordering.STRICT)
                .map(e -> e.id().value()).toList();
        if (room <= 0 || strictHeads.isEmpty()) {
            return heads;
        }
        Set<UUID> inBatch = new HashSet<>();
        heads.forEach(e -> inBatch.add(e.id().value()));
        List<UUID> run = new ArrayList<>();
        try (PreparedStatement select = connection.prepareStatement(followersOf(strictHeads.size()))) {
            for (int i = 0; i < strictHeads.size(); i++) {
                select.setObject(i + 1, strictHeads.get(i));
            }
            select.setInt(strictHeads.size() + 1, room + heads.size());
            try (ResultSet rs = select.executeQuery()) {
                String aggregate = null;
                boolean stopped = false;
                while (rs.next() && room > 0) {
                    UUID id = rs.getObject(1, UUID.class);
                    String key = rs.getString(2) + '\u0000' + rs.getString(3);
                    if (!key.equals(aggregate)) {
                        aggregate = key;
                        stopped = false;
                    }
                    if (stopped || inBatch.contains(id)) {
                        continue;
                    }
                    if ("PENDING".equals(rs.getString(4)) && !rs.getObject(5, OffsetDateTime.class).isAfter(now)
                            && request.orderingOf(rs.getString(6)) == dev.outbox.Ordering.STRICT) {
                        run.add(id);
                        room--;
                    } else {
                        // Parked, in backoff or leased: the versions after it wait (R4.6). An independent version
                        // ends the run too: any claim may take it, so this one never does, and a strict version
                        // after it waits until it is delivered, as without runs.
                        stopped = true;
                    }
                }
            }
        }
        if (run.isEmpty()) {
            return heads;
        }
        try (PreparedStatement take = connection.prepareStatement(TAKE_FOLLOWER)) {
            for (UUID id : run) {
                take.setString(1, request.claimer());
                take.setObject(2, leaseUntil);
                take.setObject(3, leaseUntil);
                take.setObject(4, id);
                take.setObject(5, now);
                take.addBatch();
            }
            for (int taken : take.executeBatch()) {
                if (taken != 1 && taken != java.sql.Statement.SUCCESS_NO_INFO) {
                    // Nothing else takes a follower of a leased head; if something did, claim nothing this time.
                    throw new SQLException("a follower of a claimed strict head changed during the claim;"
                            + " the claim rolls back and is retried");
                }
            }
        }
        List<OutboundEvent> all = new ArrayList<>(heads);
        try (PreparedStatement read = connection.prepareStatement("SELECT " + CLAIMED_COLUMNS + " FROM outbox_event"
                + " WHERE claimed_by = ? AND event_id IN (" + placeholders(run.size()) + ")")) {
            read.setString(1, request.claimer());
            for (int i = 0; i < run.size(); i++) {
                read.setObject(i + 2, run.get(i));
            }
            try (ResultSet rs = read.executeQuery()) {
                all.addAll(readClaimed(rs, request));
            }
        }
        return inSendOrder(all);
    }

    /** The due-row filter both dialects share; {@code e} is outbox_event. */
    static String candidates(ClaimRequest request) {
        return "FROM outbox_event e WHERE e.state = 'PENDING' AND e.next_attempt_at <= ?"
                + request.orderingCondition() + " ORDER BY e.next_attempt_at FETCH FIRST ? ROWS ONLY";
    }

    /** Binds the seven columns of an inbox mark, in table order. */
    static void bindMark(PreparedStatement insert, String consumer, UUID eventId, String aggregateType,
                         String aggregateId, Long aggregateVersion, OffsetDateTime now, OffsetDateTime retainUntil)
            throws SQLException {
        insert.setString(1, consumer);
        insert.setObject(2, eventId);
        insert.setString(3, aggregateType);
        insert.setString(4, aggregateId);
        if (aggregateVersion == null) {
            insert.setNull(5, Types.BIGINT);
        } else {
            insert.setLong(5, aggregateVersion);
        }
        insert.setObject(6, now);
        insert.setObject(7, retainUntil);
    }

    /**
     * The order a claimed batch is sent in: as recorded, except that one aggregate's versions always go in
     * version order, whatever the clocks of the servers that recorded them said.
     */
    static List<OutboundEvent> inSendOrder(List<OutboundEvent> claimed) {
        List<OutboundEvent> ordered = new ArrayList<>(claimed);
        ordered.sort(java.util.Comparator.comparing(OutboundEvent::createdAt));
        java.util.Map<String, List<Integer>> slots = new java.util.LinkedHashMap<>();
        for (int i = 0; i < ordered.size(); i++) {
            OutboxEvent event = ordered.get(i).event();
            slots.computeIfAbsent(event.aggregateType() + "/" + event.aggregateId(), k -> new ArrayList<>()).add(i);
        }
        List<OutboundEvent> byTime = List.copyOf(ordered);
        for (List<Integer> positions : slots.values()) {
            List<OutboundEvent> versions = new ArrayList<>(positions.stream().map(byTime::get).toList());
            versions.sort(java.util.Comparator.comparingLong(e -> e.event().aggregateVersion()));
            for (int k = 0; k < positions.size(); k++) {
                ordered.set(positions.get(k), versions.get(k));
            }
        }
        return ordered;
    }

    static List<OutboundEvent> readClaimed(ResultSet rs, ClaimRequest request) throws SQLException {
        List<OutboundEvent> claimed = new ArrayList<>();
        while (rs.next()) {
            String reference = rs.getString(8);
            OutboxEvent event = new OutboxEvent(rs.getString(2), rs.getString(3), rs.getLong(4), rs.getString(5),
                    rs.getInt(6), rs.getString(7), reference == null ? null : URI.create(reference));
            claimed.add(new OutboundEvent(new EventId(rs.getObject(1, UUID.class)), event,
                    rs.getObject(9, OffsetDateTime.class), rs.getInt(10), rs.getLong(11),
                    "SHADOW".equals(rs.getString(12)), request.orderingOf(event.eventType())));
        }
        // RETURNING and a CAS loop hand rows back in no defined order; the transports keep the batch's order, so
        // put one aggregate's versions in order here (R9.1), also for independent types that share a batch.
        return inSendOrder(claimed);
    }

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
        throw new IllegalStateException("the outbox has no SQL dialect for database '" + productName
                + "'; supported: H2, PostgreSQL (setting outbox.dialect)");
    }
}
