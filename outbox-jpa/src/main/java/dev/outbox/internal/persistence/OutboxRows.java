package dev.outbox.internal.persistence;

/**
 * The statements on {@code outbox_event} outside the claim ({@link Claims}): the confirm, retry and park of a
 * claimed row, the backlog, the operators' repair and replay, and cleanup. Plain SQL that H2 and PostgreSQL run
 * as it is; what differs per database is in {@link Dialect}.
 */
public final class OutboxRows {

    /**
     * R1.2, R3.1: a recorded event, inserted on the connection of the caller's transaction and executed before the
     * command returns. {@code next_attempt_at} is left to its column default, the database's time, the clock every
     * claim compares with (R4.3): a recording server whose clock runs ahead would otherwise hold its own events back.
     */
    public static final String RECORD = "INSERT INTO outbox_event (event_id, aggregate_type, aggregate_id, aggregate_version,"
            + " event_type, schema_version, payload, payload_ref, created_at, state, attempts, lease_version, publish_mode,"
            + " trace_parent, trace_state, previous_versions) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 'PENDING', 0, 0, ?, ?, ?, ?)";

    /**
     * R5.7: the event just before one being recorded, whose type and own previous versions give the new event's
     * ({@code dev.outbox.internal.event.PreviousVersions}); the aggregate's unique key serves it.
     */
    public static final String PREVIOUS_OF = "SELECT event_type, previous_versions FROM outbox_event"
            + " WHERE aggregate_type = ? AND aggregate_id = ? AND aggregate_version = ?";

    /**
     * R5.7: where the event just before is gone or carries no previous versions, the aggregate's remaining rows by
     * type, the latest version of each below the event being recorded (the unique key's prefix serves it).
     */
    public static final String LATEST_BY_TYPE_BELOW = "SELECT event_type, MAX(aggregate_version) AS latest"
            + " FROM outbox_event WHERE aggregate_type = ? AND aggregate_id = ? AND aggregate_version < ?"
            + " GROUP BY event_type";

    /** R4.2: confirm only while the claim is ours: same claimer, same lease version, still pending. */
    public static final String CLAIM_STILL_OURS = " WHERE event_id = ? AND claimed_by = ? AND lease_version = ? AND state = 'PENDING'";

    /** claimed_by stays on a delivered row: which instance delivered it, for diagnosis. */
    public static final String CONFIRM = "UPDATE outbox_event SET state = 'DELIVERED', delivered_at = ?, broker_message_id = ?,"
            + " broker_partition = ?, broker_offset = ?, lease_until = NULL, last_error_class = NULL"
            + CLAIM_STILL_OURS;

    /** R4.4: the row stays; the next attempt waits for the backoff. */
    public static final String RETRY_LATER = "UPDATE outbox_event SET next_attempt_at = ?, last_error_class = ?, claimed_by = NULL,"
            + " lease_until = NULL" + CLAIM_STILL_OURS;

    /**
     * A claimed event that was never handed to a broker (held behind an earlier version of its run, or the lease
     * ran short): the claim's attempt is given back and it is due again at once; its last error class stays.
     */
    public static final String RETRY_NOT_SENT = "UPDATE outbox_event SET next_attempt_at = ?, attempts = attempts - 1, claimed_by = NULL,"
            + " lease_until = NULL" + CLAIM_STILL_OURS;

    /** R4.5: parked at once, with the failure class and the time (the database's clock) as evidence. */
    public static final String PARK = "UPDATE outbox_event SET state = 'PARKED', last_error_class = ?, parked_at = ?,"
            + " claimed_by = NULL, lease_until = NULL"
            + CLAIM_STILL_OURS;

    /**
     * R8.1: one small batch of delivered rows older than the cut-off, oldest first by (delivered_at, event_id),
     * on the delivered-rows index. Repeated up to a per-run limit, never one long DELETE. The outer WHERE repeats
     * the sub-query's condition: a row that waited for a lock is re-checked as it is now, and a replay that put it
     * back to pending meanwhile keeps it (R9.3); the sub-query's choice alone is a stale snapshot.
     */
    public static final String DELETE_DELIVERED_BATCH = "DELETE FROM outbox_event WHERE state = 'DELIVERED' AND delivered_at < ?"
            + " AND event_id IN (SELECT event_id FROM (SELECT event_id FROM outbox_event WHERE state = 'DELIVERED'"
            + " AND delivered_at < ? ORDER BY delivered_at, event_id FETCH FIRST ? ROWS ONLY) batch)";

    /**
     * R6.1, R6.2: the backlog per event type and last error class (null: not failed yet), with its oldest
     * event. Reads pending rows only, on the pending-rows index: never the delivered history.
     */
    public static final String PENDING_BY_TYPE = "SELECT event_type, last_error_class, COUNT(*) AS events, MIN(created_at) AS oldest"
            + " FROM outbox_event"
            + " WHERE state = 'PENDING' GROUP BY event_type, last_error_class";

    /** Parked rows per event type, on the parked-rows index. */
    public static final String PARKED_BY_TYPE = "SELECT event_type, COUNT(*) AS events FROM outbox_event"
            + " WHERE state = 'PARKED' GROUP BY event_type";

    /** One stored event, whole, for an operator: {@link #EVENT_COLUMNS} order. */
    public static final String EVENT_COLUMNS = "event_id, aggregate_type, aggregate_id, aggregate_version, event_type, schema_version,"
            + " payload, payload_ref, created_at, state, attempts, last_error_class, parked_at, delivered_at, broker_message_id,"
            + " accepted_by";

    /** {@link #EVENT_COLUMNS} without the body: what a list shows (R6.3: a body is read per event, on request). */
    static final String LISTED_COLUMNS = "event_id, aggregate_type, aggregate_id, aggregate_version, event_type, schema_version,"
            + " NULL AS payload, payload_ref, created_at, state, attempts, last_error_class, parked_at, delivered_at,"
            + " broker_message_id, accepted_by";

    public static final String EVENT_BY_ID = "SELECT " + EVENT_COLUMNS + " FROM outbox_event WHERE event_id = ?";

    /**
     * R9.4: one event, its row locked until the transaction ends, so an approved content change compares and replaces
     * the body with no other change between (two people's fixes of one event never both pass the comparison).
     */
    public static final String EVENT_BY_ID_FOR_UPDATE = EVENT_BY_ID + " FOR UPDATE";

    /** R6.6: parked rows oldest first, on the parked-rows index; the payload is fetched per event, not listed. */
    public static final String PARKED_PAGE = "SELECT " + LISTED_COLUMNS + " FROM outbox_event WHERE state = 'PARKED' ORDER BY created_at, event_id FETCH FIRST ? ROWS ONLY";

    /**
     * R6.6: a repair changes the body and schema version of a parked row only; its event id stays. Never of one a
     * transport accepted or that was delivered once (a replay that parked): its consumers may hold the old body.
     */
    public static final String FIX_PARKED = "UPDATE outbox_event SET payload = ?, payload_ref = ?, schema_version = ?"
            + " WHERE event_id = ? AND state = 'PARKED' AND accepted_by IS NULL AND delivered_at IS NULL";

    /**
     * R6.6: one transport that accepted (or may have accepted) the event on an attempt that did not deliver it
     * everywhere, added once to the row's set (",jms,kafka,"), whoever holds the lease: a send that happened is a fact.
     */
    public static final String ACCEPTED_BY = "UPDATE outbox_event SET accepted_by = CONCAT(COALESCE(accepted_by, ','), ?,"
            + " ',') WHERE event_id = ? AND POSITION(CONCAT(',', ?, ',') IN COALESCE(accepted_by, ',')) = 0";

    /** R6.6: back to pending with the same event id; attempts and the last error class stay as evidence. */
    public static final String RESUME_PARKED = "UPDATE outbox_event SET state = 'PENDING', next_attempt_at = ?, claimed_by = NULL,"
            + " lease_until = NULL WHERE event_id = ? AND state = 'PARKED'";

    /**
     * R9.2: delivered events recorded in [from, to), optionally of one type, oldest first. A time-range replay is
     * a rare admin action: it may scan the table rather than cost every business insert another index.
     */
    public static String replayRange(boolean oneType) {
        return "SELECT " + LISTED_COLUMNS + " FROM outbox_event WHERE state = 'DELIVERED'"
                + " AND created_at >= ? AND created_at < ?" + (oneType ? " AND event_type = ?" : "")
                + " ORDER BY created_at, event_id FETCH FIRST ? ROWS ONLY";
    }

    /**
     * R6.6, R9.4: the events parked with one error class, optionally of one type, oldest first, on the parked-rows
     * index: a bulk resume after a configuration error parked many at once.
     */
    public static String parkedWith(boolean oneType) {
        return "SELECT " + LISTED_COLUMNS + " FROM outbox_event WHERE state = 'PARKED'"
                + " AND last_error_class = ?" + (oneType ? " AND event_type = ?" : "")
                + " ORDER BY created_at, event_id FETCH FIRST ? ROWS ONLY";
    }

    /**
     * R9.3: the same row, the same event id, sent again; staggered next_attempt_at is the rate limit (R9.4). An
     * operator's replay is a real send, also of an event that was only shadowed while its old path sent it.
     */
    public static final String REPLAY_ONE = "UPDATE outbox_event SET state = 'PENDING', next_attempt_at = ?, claimed_by = NULL,"
            + " lease_until = NULL, publish_mode = 'PUBLISH' WHERE event_id = ? AND state = 'DELIVERED'";

    /** The stats endpoint's counts per state. */
    public static final String COUNT_BY_STATE = "SELECT state, COUNT(*) AS events FROM outbox_event GROUP BY state";

    /**
     * Pending events held behind a parked earlier version of their aggregate (R4.6); only asked when something is
     * parked, and served by the (aggregate, version) unique index.
     */
    public static final String BLOCKED_BY_PARKED = "SELECT COUNT(*) AS events FROM outbox_event e"
            + " WHERE e.state = 'PENDING' AND EXISTS (SELECT 1 FROM outbox_event p WHERE p.aggregate_type = e.aggregate_type"
            + " AND p.aggregate_id = e.aggregate_id AND p.aggregate_version < e.aggregate_version AND p.state = 'PARKED')";

    /** Readiness (R6.4): the oldest pending event per type, on the pending-rows index. */
    public static final String OLDEST_PENDING_BY_TYPE = "SELECT event_type, MIN(created_at) AS oldest FROM outbox_event"
            + " WHERE state = 'PENDING' GROUP BY event_type";

    private OutboxRows() {
    }
}
