package dev.outbox.internal.persistence;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.UUID;

/**
 * Replay requests and their approval ({@code outbox_replay_request}, {@code outbox_replay_event},
 * {@code outbox_replay_requester}, and {@code outbox_content_change} for a request that changes a parked event's
 * content; R9.4), and what a replay's dry run shows of the consumers that share this
 * database. Everything runs in the caller's transaction.
 */
@ApplicationScoped
public class ReplayRequests {

    /** One request as stored; {@code state} is AWAITING_APPROVAL, EXECUTED or REJECTED. */
    public record Request(UUID requestId, String state, String requestedBy, String reason, String selection,
                          int eventCount, String decidedBy, OffsetDateTime decidedAt) {
    }

    /**
     * A content change of one parked event, asked for with a request (R6.6, R9.4): the body and schema version it was
     * asked against and the ones it puts in their place. A body is a JSON text or a reference, never both.
     */
    public record ContentChange(UUID eventId, String payloadBefore, String payloadRefBefore, int schemaVersionBefore,
                                String payload, String payloadRef, int schemaVersion) {
    }

    @Inject
    OutboxDataSource database;

    /** R9.4: a content change stored with its request, so an approval applies exactly what the approver was shown. */
    static final String CONTENT_CHANGE_INSERT = "INSERT INTO outbox_content_change (request_id, event_id, payload_before,"
            + " payload_ref_before, schema_version_before, payload, payload_ref, schema_version)"
            + " VALUES (?, ?, ?, ?, ?, ?, ?, ?)";

    /** R6.3: once decided, a change's bodies are no longer kept here (the event has its own, the audit fingerprints). */
    static final String CONTENT_CHANGE_DELETE = "DELETE FROM outbox_content_change WHERE request_id = ?";

    static final String CONTENT_CHANGE_BY_REQUEST = "SELECT event_id, payload_before, payload_ref_before,"
            + " schema_version_before, payload, payload_ref, schema_version FROM outbox_content_change"
            + " WHERE request_id = ?";

    static final String REPLAY_REQUEST_INSERT = "INSERT INTO outbox_replay_request (request_id, requested_at, requested_by, reason,"
            + " selection, event_count, state) VALUES (?, ?, ?, ?, ?, ?, 'AWAITING_APPROVAL')";

    static final String REPLAY_REQUEST_BY_ID = "SELECT request_id, requested_at, requested_by, reason, selection, event_count,"
            + " state, decided_by, decided_at FROM outbox_replay_request WHERE request_id = ?";

    /** The requests waiting for a second person (R9.4), oldest first: what an approver has to decide. */
    static final String REPLAY_REQUESTS_WAITING = "SELECT request_id, requested_at, requested_by, reason, selection,"
            + " event_count, state, decided_by, decided_at FROM outbox_replay_request WHERE state = 'AWAITING_APPROVAL'"
            + " ORDER BY requested_at, request_id FETCH FIRST ? ROWS ONLY";

    /**
     * A running replay's progress: its events by their state now (states, not clocks, so no server's time counts;
     * an event parked again shows as parked, not as done).
     */
    static final String REPLAY_REQUEST_PROGRESS = "SELECT e.state, COUNT(*) AS events FROM outbox_replay_event r"
            + " JOIN outbox_event e ON e.event_id = r.event_id WHERE r.request_id = ? GROUP BY e.state";

    /** R9.4: the exact events of a request, stored with it, so an approval replays these and nothing else. */
    static final String REPLAY_REQUEST_EVENT_INSERT = "INSERT INTO outbox_replay_event (request_id, item_no, event_id) VALUES (?, ?, ?)";

    static final String REPLAY_REQUEST_EVENTS = "SELECT event_id FROM outbox_replay_event WHERE request_id = ? ORDER BY item_no";

    /**
     * R9.4: how many events one person replayed without a second approver since a time: replays split into small
     * requests count together against the approval threshold.
     */
    static final String REPLAYED_UNAPPROVED_SINCE = "SELECT COALESCE(SUM(event_count), 0) AS events FROM outbox_replay_request"
            + " WHERE requested_by = ? AND requested_at >= ? AND state = 'EXECUTED' AND decided_by = requested_by";

    /** R9.4: serialises one person's replay requests until the transaction ends ({@link #lockRequester}). */
    static final String REPLAY_REQUESTER_LOCK = "SELECT requester FROM outbox_replay_requester WHERE requester = ? FOR UPDATE";

    /** Decides a waiting request once: a second approval of the same request changes nothing. */
    static final String REPLAY_REQUEST_DECIDE = "UPDATE outbox_replay_request SET state = ?, decided_by = ?, decided_at = ?"
            + " WHERE request_id = ? AND state = 'AWAITING_APPROVAL'";


    /**
     * R9.4: holds one person's requests in line until the caller's transaction ends, so a parallel request of the
     * same person counts this one.
     */
    public void lockRequester(String requester) {
        database.onConnection(connection -> {
            database.dialect().lockRequester(connection, requester);
            return null;
        }, () -> "cannot lock the replay requests of " + requester);
    }

    /** R9.4: how many events one person replayed without a second approver since a time. */
    public long replayedWithoutApproval(String requester, OffsetDateTime since) {
        return database.onConnection(connection -> {
            try (PreparedStatement select = connection.prepareStatement(REPLAYED_UNAPPROVED_SINCE)) {
                select.setString(1, requester);
                select.setObject(2, since);
                try (ResultSet rs = select.executeQuery()) {
                    rs.next();
                    return rs.getLong("events");
                }
            }
        }, () -> "cannot count the events " + requester + " replayed");
    }

    /** Stores a request awaiting approval with its exact events in their order (R9.4). */
    public void insert(UUID requestId, OffsetDateTime at, String requester, String reason, String selection,
                       List<UUID> eventIds) {
        database.onConnection(connection -> {
            try (PreparedStatement insert = connection.prepareStatement(REPLAY_REQUEST_INSERT)) {
                insert.setObject(1, requestId);
                insert.setObject(2, at);
                insert.setString(3, requester);
                insert.setString(4, reason.length() > 1000 ? reason.substring(0, 1000) : reason);
                insert.setString(5, selection);
                insert.setInt(6, eventIds.size());
                insert.executeUpdate();
            }
            try (PreparedStatement insert = connection.prepareStatement(REPLAY_REQUEST_EVENT_INSERT)) {
                for (int i = 0; i < eventIds.size(); i++) {
                    insert.setObject(1, requestId);
                    insert.setInt(2, i);
                    insert.setObject(3, eventIds.get(i));
                    insert.addBatch();
                }
                insert.executeBatch();
            }
            return null;
        }, () -> "cannot store replay request " + requestId);
    }

    /** Stores the content change a request asks for (in the caller's transaction, with the request). */
    public void insertContentChange(UUID requestId, ContentChange change) {
        database.onConnection(connection -> {
            try (PreparedStatement insert = connection.prepareStatement(CONTENT_CHANGE_INSERT)) {
                insert.setObject(1, requestId);
                insert.setObject(2, change.eventId());
                insert.setString(3, change.payloadBefore());
                insert.setString(4, change.payloadRefBefore());
                insert.setInt(5, change.schemaVersionBefore());
                insert.setString(6, change.payload());
                insert.setString(7, change.payloadRef());
                insert.setInt(8, change.schemaVersion());
                insert.executeUpdate();
            }
            return null;
        }, () -> "cannot store the content change of request " + requestId);
    }

    /** Forgets a decided request's content change (its bodies before and after). */
    public void forgetContentChange(UUID requestId) {
        database.onConnection(connection -> {
            try (PreparedStatement delete = connection.prepareStatement(CONTENT_CHANGE_DELETE)) {
                delete.setObject(1, requestId);
                delete.executeUpdate();
            }
            return null;
        }, () -> "cannot forget the content change of request " + requestId);
    }

    /** The content change a request asks for; empty for a request that changes no content. */
    public Optional<ContentChange> contentChange(UUID requestId) {
        return database.onConnection(connection -> {
            try (PreparedStatement select = connection.prepareStatement(CONTENT_CHANGE_BY_REQUEST)) {
                select.setObject(1, requestId);
                try (ResultSet rs = select.executeQuery()) {
                    if (!rs.next()) {
                        return Optional.<ContentChange>empty();
                    }
                    return Optional.of(new ContentChange(rs.getObject("event_id", UUID.class),
                            rs.getString("payload_before"), rs.getString("payload_ref_before"),
                            rs.getInt("schema_version_before"), rs.getString("payload"), rs.getString("payload_ref"),
                            rs.getInt("schema_version")));
                }
            }
        }, () -> "cannot read the content change of request " + requestId);
    }

    /** The exact events stored with a request, in their order; empty for requests older than schema V5. */
    public List<UUID> events(UUID requestId) {
        return database.onConnection(connection -> {
            List<UUID> ids = new ArrayList<>();
            try (PreparedStatement select = connection.prepareStatement(REPLAY_REQUEST_EVENTS)) {
                select.setObject(1, requestId);
                try (ResultSet rs = select.executeQuery()) {
                    while (rs.next()) {
                        ids.add(rs.getObject("event_id", UUID.class));
                    }
                }
            }
            return ids;
        }, () -> "cannot read the events of replay request " + requestId);
    }

    /** Decides a waiting request; false when it was decided meanwhile. */
    public boolean decide(UUID requestId, String state, String decider, OffsetDateTime at) {
        return database.onConnection(connection -> {
            try (PreparedStatement update = connection.prepareStatement(REPLAY_REQUEST_DECIDE)) {
                update.setString(1, state);
                update.setString(2, decider);
                update.setObject(3, at);
                update.setObject(4, requestId);
                return update.executeUpdate() == 1;
            }
        }, () -> "cannot decide replay request " + requestId);
    }

    public Optional<Request> find(UUID requestId) {
        return database.onConnection(connection -> {
            try (PreparedStatement select = connection.prepareStatement(REPLAY_REQUEST_BY_ID)) {
                select.setObject(1, requestId);
                try (ResultSet rs = select.executeQuery()) {
                    return rs.next() ? Optional.of(read(rs)) : Optional.<Request>empty();
                }
            }
        }, () -> "cannot read replay request " + requestId);
    }

    /** The requests waiting for a second person, oldest first. */
    public List<Request> waiting(int limit) {
        return database.onConnection(connection -> {
            try (PreparedStatement select = connection.prepareStatement(REPLAY_REQUESTS_WAITING)) {
                select.setInt(1, limit);
                List<Request> waiting = new ArrayList<>();
                try (ResultSet rs = select.executeQuery()) {
                    while (rs.next()) {
                        waiting.add(read(rs));
                    }
                }
                return waiting;
            }
        }, () -> "cannot list waiting replay requests");
    }

    /** An executed request's events by their state now. */
    public Map<String, Long> progress(UUID requestId) {
        return database.onConnection(connection -> counts(connection, REPLAY_REQUEST_PROGRESS, List.of(requestId),
                rs -> rs.getString("state")), () -> "cannot read the progress of replay request " + requestId);
    }

    /** How many of these events each consumer whose inbox shares this database applied (a dry run's view). */
    public Map<String, Long> appliedBy(List<UUID> eventIds) {
        if (eventIds.isEmpty()) {
            return Map.of();
        }
        return database.onConnection(connection -> counts(connection, InboxMarks.consumersOf(eventIds.size()),
                eventIds, rs -> rs.getString("consumer")), () -> "cannot read which consumers applied the events");
    }

    /** The side effects of these events by consumer, effect and state (a dry run's view, R5.4). */
    public Map<String, Long> sideEffectsOf(List<UUID> eventIds) {
        if (eventIds.isEmpty()) {
            return Map.of();
        }
        return database.onConnection(connection -> counts(connection, SideEffectRows.sideEffectsOf(eventIds.size()),
                eventIds, rs -> rs.getString("consumer") + "/" + rs.getString("effect") + " " + rs.getString("state")),
                () -> "cannot read the side effects of the events");
    }

    private interface Key {
        String of(ResultSet rs) throws SQLException;
    }

    private static Map<String, Long> counts(Connection connection, String sql, List<UUID> ids, Key key)
            throws SQLException {
        Map<String, Long> counts = new TreeMap<>();
        try (PreparedStatement select = connection.prepareStatement(sql)) {
            for (int i = 0; i < ids.size(); i++) {
                select.setObject(i + 1, ids.get(i));
            }
            try (ResultSet rs = select.executeQuery()) {
                while (rs.next()) {
                    counts.put(key.of(rs), rs.getLong("events"));
                }
            }
        }
        return counts;
    }

    private static Request read(ResultSet rs) throws SQLException {
        return new Request(rs.getObject("request_id", UUID.class), rs.getString("state"), rs.getString("requested_by"),
                rs.getString("reason"), rs.getString("selection"), rs.getInt("event_count"),
                rs.getString("decided_by"), rs.getObject("decided_at", OffsetDateTime.class));
    }
}
