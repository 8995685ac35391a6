package dev.outbox.internal.persistence;

/**
 * The statements of replay requests and their approval ({@code outbox_replay_request},
 * {@code outbox_replay_event}, {@code outbox_replay_requester}; R9.4).
 */
public final class ReplayRequests {

    public static final String REPLAY_REQUEST_INSERT = "INSERT INTO outbox_replay_request (request_id, requested_at, requested_by, reason,"
            + " selection, event_count, state) VALUES (?, ?, ?, ?, ?, ?, 'AWAITING_APPROVAL')";

    public static final String REPLAY_REQUEST_BY_ID = "SELECT request_id, requested_at, requested_by, reason, selection, event_count,"
            + " state, decided_by, decided_at FROM outbox_replay_request WHERE request_id = ?";

    /** The requests waiting for a second person (R9.4), oldest first: what an approver has to decide. */
    public static final String REPLAY_REQUESTS_WAITING = "SELECT request_id, requested_at, requested_by, reason, selection,"
            + " event_count, state, decided_by, decided_at FROM outbox_replay_request WHERE state = 'AWAITING_APPROVAL'"
            + " ORDER BY requested_at, request_id FETCH FIRST ? ROWS ONLY";

    /**
     * A running replay's progress: its events by their state now (states, not clocks, so no server's time counts;
     * an event parked again shows as parked, not as done).
     */
    public static final String REPLAY_REQUEST_PROGRESS = "SELECT e.state, COUNT(*) AS events FROM outbox_replay_event r"
            + " JOIN outbox_event e ON e.event_id = r.event_id WHERE r.request_id = ? GROUP BY e.state";

    /** R9.4: the exact events of a request, stored with it, so an approval replays these and nothing else. */
    public static final String REPLAY_REQUEST_EVENT_INSERT = "INSERT INTO outbox_replay_event (request_id, item_no, event_id) VALUES (?, ?, ?)";

    public static final String REPLAY_REQUEST_EVENTS = "SELECT event_id FROM outbox_replay_event WHERE request_id = ? ORDER BY item_no";

    /**
     * R9.4: how many events one person replayed without a second approver since a time: replays split into small
     * requests count together against the approval threshold.
     */
    public static final String REPLAYED_UNAPPROVED_SINCE = "SELECT COALESCE(SUM(event_count), 0) AS events FROM outbox_replay_request"
            + " WHERE requested_by = ? AND requested_at >= ? AND state = 'EXECUTED' AND decided_by = requested_by";

    /** R9.4: serialises one person's replay requests until the transaction ends ({@link #lockRequester}). */
    public static final String REPLAY_REQUESTER_LOCK = "SELECT requester FROM outbox_replay_requester WHERE requester = ? FOR UPDATE";

    /** Decides a waiting request once: a second approval of the same request changes nothing. */
    public static final String REPLAY_REQUEST_DECIDE = "UPDATE outbox_replay_request SET state = ?, decided_by = ?, decided_at = ?"
            + " WHERE request_id = ? AND state = 'AWAITING_APPROVAL'";

    private ReplayRequests() {
    }
}
