package dev.outbox.internal.persistence;

import dev.outbox.spi.OutboundEvent;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Savepoint;
import java.sql.Statement;
import java.time.OffsetDateTime;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;

/** PostgreSQL 12 and later. */
public final class PostgreSqlDialect implements Dialect {

    /**
     * The start-up probe's value: a JSON text PostgreSQL cannot parse, which it quotes in the error's detail and
     * context ("Token ... is invalid"), as it quotes a failed row's values. A plain cast: no table, no privilege, no
     * procedural language needed.
     */
    static final String DETAIL_PROBE = "outbox_startup_probe_quoted";
    /** invalid_text_representation: the probe failed the way it must. */
    private static final String PROBE_FAILED_AS_EXPECTED = "22P02";

    @Override
    public String name() {
        return "postgresql";
    }

    /** lock_timeout, for this session: each statement gives up after {@code wait} in a lock queue (SQLSTATE 55P03). */
    @Override
    public void limitSchemaLockWait(Connection connection, java.time.Duration wait) throws SQLException {
        try (Statement set = connection.createStatement()) {
            set.execute("SET lock_timeout = " + Math.max(1, wait.toMillis()));
        }
    }

    @Override
    public void unlimitSchemaLockWait(Connection connection) throws SQLException {
        try (Statement reset = connection.createStatement()) {
            reset.execute("RESET lock_timeout");
        }
    }

    /**
     * R6.3: PostgreSQL's error details quote a failed statement's row values ("Failing row contains (...)", a
     * payload among them), and the driver puts them in its exception messages unless {@code
     * logServerErrorDetail=false}; those exceptions are causes of the recorder's and the inbox's. The probe makes the
     * server quote a known value and looks for it in the exception and its causes, which holds whatever way the
     * property was set (a datasource property, a URL parameter) and through any pool's wrapper. A probe that fails
     * any other way proves nothing, and is refused too rather than taken for a quiet driver; one cut short by a lost
     * connection or an ended session is no verdict at all (its SQLException is thrown, and the next connection asks).
     */
    @Override
    public void verifyDataSource(Connection connection, String dataSource) throws SQLException {
        SQLException answer = null;
        Savepoint before = connection.getAutoCommit() ? null : connection.setSavepoint();
        try (Statement probe = connection.createStatement()) {
            probe.executeQuery("SELECT CAST('" + DETAIL_PROBE + "' AS json)").close();
        } catch (SQLException expected) {
            answer = expected;
        } finally {
            if (before != null) {
                // a failed statement aborts the whole transaction on PostgreSQL; the caller's stays usable
                try {
                    connection.rollback(before);
                } catch (SQLException rollbackFailed) {
                    if (answer == null) {
                        throw rollbackFailed;
                    }
                    answer.addSuppressed(rollbackFailed); // the probe's own answer says more (an ended session)
                }
            }
        }
        if (answer != null && quotes(answer, DETAIL_PROBE)) {
            throw new IllegalStateException("the outbox datasource " + dataSource + " puts PostgreSQL's error details"
                    + " in its exceptions, and those quote row values, payloads included (R6.3). Set"
                    + " logServerErrorDetail=false (Liberty: logServerErrorDetail=\"false\" on the dataSource's"
                    + " properties.postgresql; WildFly: ?logServerErrorDetail=false in the connection URL)");
        }
        if (answer != null && !isProbeFailure(answer) && isPassing(answer)) {
            // a lost connection or an ended session says nothing about the driver: no verdict, the next one asks
            throw answer;
        }
        if (answer == null || !isProbeFailure(answer)) {
            throw new IllegalStateException("the start-up probe of the outbox datasource " + dataSource + " did not"
                    + " fail as it must (" + (answer == null ? "no error" : "SQLState " + answer.getSQLState()) + "),"
                    + " so whether the driver quotes row values in its exceptions cannot be told (R6.3)", answer);
        }
    }

    /** Whether a message among {@code failure}'s chained exceptions and their causes quotes {@code value}. */
    private static boolean quotes(SQLException failure, String value) {
        for (SQLException each = failure; each != null; each = each.getNextException()) {
            for (Throwable cause = each; cause != null; cause = cause.getCause() == cause ? null : cause.getCause()) {
                if (String.valueOf(cause.getMessage()).contains(value)) {
                    return true;
                }
            }
        }
        return false;
    }

    /** Connection exceptions (08), lack of resources (53) and operator intervention (57: cancelled, shut down). */
    private static boolean isPassing(SQLException failure) {
        String state = failure.getSQLState();
        return state != null && (state.startsWith("08") || state.startsWith("53") || state.startsWith("57"));
    }

    private static boolean isProbeFailure(SQLException failure) {
        for (SQLException each = failure; each != null; each = each.getNextException()) {
            if (PROBE_FAILED_AS_EXPECTED.equals(each.getSQLState())) {
                return true;
            }
        }
        return false;
    }

    /**
     * Issue 44: the claim's statements are planned as if the table were big, whatever its statistics say, for the
     * rest of the claim's transaction only ({@code set_config(..., true)} is {@code SET LOCAL}). A table analyzed while
     * nearly empty (a quiet outbox after cleanup) that then meets a backlog (after a broker outage) was planned as a
     * sequential scan with a sequential scan per row for the strict check: one claim over 100,000 pending rows took
     * 58.7 s (auto_explain, 193 million buffers), and the second of two servers delivered nothing. The statistics catch
     * up at the next autoanalyze; the claim must not wait for them. Planning still picks among the indexes. JIT is off
     * too: a disabled sort (the followers' sort of a few hundred rows) counts as ten billion in the plan's cost up to
     * PostgreSQL 17, over {@code jit_above_cost}, and each of those statements was then compiled before it ran (57 of
     * its 66 ms).
     */
    public static final String CLAIM_PLAN_GUARD = "SELECT set_config('enable_seqscan', 'off', true),"
            + " set_config('enable_bitmapscan', 'off', true), set_config('enable_sort', 'off', true),"
            + " set_config('jit', 'off', true)";

    /**
     * One statement: lock due rows with SKIP LOCKED, so concurrent publishers claim disjoint batches without
     * waiting on each other (R4.1), lease them and return them. The transaction around it is short and
     * commits before any send.
     *
     * <p>The locking select is a {@code WITH} query, which PostgreSQL runs exactly once (a query with a locking
     * clause is never folded into the statement). As {@code event_id IN (SELECT ...)} the planner may run it again
     * for every row of a nested loop, each run skipping the rows already updated and taking the next due ones,
     * so a claim leased more than its limit (DialectContract#aClaimLeasesNoMoreThanItsLimitWhicheverJoinThePlannerPicks).
     * The update finds the locked rows by their keys ({@code = ANY (ARRAY(...))}, computed once): planned as a join
     * with statistics that said the table was empty, it walked the whole primary key once per claimed row (49.9
     * million rows compared for 500).
     */
    @Override
    public List<OutboundEvent> claim(Connection connection, ClaimRequest request) throws SQLException {
        try (PreparedStatement guard = connection.prepareStatement(CLAIM_PLAN_GUARD)) {
            guard.executeQuery().close();
        }
        String sql = claimStatement(request);
        OffsetDateTime now = Sql.clock(connection);
        OffsetDateTime leaseUntil = now.plus(request.lease());
        try (PreparedStatement claim = connection.prepareStatement(sql)) {
            int next = Claims.bindCandidates(claim, 1, request, now);
            claim.setString(next, request.claimer());
            claim.setObject(next + 1, leaseUntil);
            claim.setObject(next + 2, leaseUntil);
            List<OutboundEvent> heads;
            try (ResultSet rs = claim.executeQuery()) {
                heads = Claims.readClaimed(rs, request);
            }
            return Claims.withRuns(connection, request, heads, now, leaseUntil, PostgreSqlDialect::followersOf,
                    PostgreSqlDialect::leaseFollowers);
        }
    }

    /** {@link #leaseFollowers}'s statement: the claimer, the lease's end twice, the run's keys, now. */
    public static final String FOLLOWER_LEASE = "UPDATE outbox_event SET claimed_by = ?,"
            + " lease_version = lease_version + 1, lease_until = ?, next_attempt_at = ?, attempts = attempts + 1"
            + " WHERE event_id = ANY (?::uuid[]) AND (state || '') = 'PENDING' AND next_attempt_at <= ?"
            + " RETURNING " + Claims.CLAIMED_COLUMNS;

    /**
     * A claim's followers leased and read back in one statement (the shared way is a statement per row and a read),
     * still pending and due, or the claim rolls back, as {@link Claims#leaseFollowers}. Found by key whatever the
     * statistics say, as the confirm ({@link #CONFIRM_BATCH}): the shared statement, one row's key with
     * {@code state = 'PENDING'}, was planned under the claim's guard, with statistics of an empty table, as a walk of
     * the undelivered-versions index, 59,000 rows for each follower (81 to 99 ms each, two servers on one backlog).
     */
    private static List<OutboundEvent> leaseFollowers(Connection connection, ClaimRequest request, List<UUID> run,
                                                      OffsetDateTime now, OffsetDateTime leaseUntil)
            throws SQLException {
        try (PreparedStatement take = connection.prepareStatement(FOLLOWER_LEASE)) {
            take.setString(1, request.claimer());
            take.setObject(2, leaseUntil);
            take.setObject(3, leaseUntil);
            take.setArray(4, connection.createArrayOf("uuid", run.toArray()));
            take.setObject(5, now);
            List<OutboundEvent> taken;
            try (ResultSet rs = take.executeQuery()) {
                taken = Claims.readClaimed(rs, request);
            }
            if (taken.size() != run.size()) {
                // Nothing else takes a follower of a leased head; if something did, claim nothing this time.
                throw new SQLException("a follower of a claimed strict head changed during the claim;"
                        + " the claim rolls back and is retried");
            }
            return taken;
        }
    }

    /**
     * The claim's one statement: the candidates' parameters ({@link Claims#bindCandidates}), then the claimer and the
     * lease's end twice. Public for the PostgreSQL contract's plan check.
     */
    public static String claimStatement(ClaimRequest request) {
        return "WITH due AS (SELECT e.event_id " + Claims.candidates(request) + " FOR UPDATE SKIP LOCKED)"
                + " UPDATE outbox_event SET claimed_by = ?, lease_version = lease_version + 1, lease_until = ?,"
                + " next_attempt_at = ?, attempts = attempts + 1"
                + " WHERE event_id = ANY (ARRAY(SELECT event_id FROM due))"
                + " RETURNING " + Claims.CLAIMED_COLUMNS;
    }

    /**
     * R4.6, issue 44: the undelivered versions after each strict head, read from the head: each head's versions come
     * from their own range of the undelivered-versions index ({@code LATERAL}, at most {@code limit} per head), and
     * only those are sorted and cut: a cost bounded by the batch, not the backlog. The shared statement
     * ({@link Claims#followersOf}) joins, orders and cuts as a whole, and PostgreSQL answered it by walking a whole
     * index in (aggregate, version) order until it met the heads' followers: the unique key with the heads as a
     * filter, or the undelivered index with a probe of the unique key per row (185-380 ms at 100,000 pending, against
     * 25-45 ms for the claim itself). A claim runs it only when its heads leave room in the batch, which happens all
     * the time with two publishers skipping each other's rows: the drain with two workers fell to 0.71-0.77 of one.
     * The limit is written into the text (an int the claim computed) so the heads stay the first parameters.
     */
    public static String followersOf(int heads, int limit) {
        return "SELECT f.event_id, f.aggregate_type, f.aggregate_id, f.state, f.next_attempt_at, f.event_type"
                + " FROM outbox_event h CROSS JOIN LATERAL (SELECT g.event_id, g.aggregate_type, g.aggregate_id,"
                + " g.aggregate_version, g.state, g.next_attempt_at, g.event_type FROM outbox_event g"
                + " WHERE g.aggregate_type = h.aggregate_type AND g.aggregate_id = h.aggregate_id"
                + " AND g.aggregate_version > h.aggregate_version AND g.state <> 'DELIVERED'"
                + " ORDER BY g.aggregate_version FETCH FIRST " + limit + " ROWS ONLY) f"
                + " WHERE h.event_id IN (" + Sql.placeholders(heads) + ")"
                + " ORDER BY f.aggregate_type, f.aggregate_id, f.aggregate_version FETCH FIRST ? ROWS ONLY";
    }

    /**
     * The whole batch in one statement: the acknowledgements travel as arrays and are joined to the rows, so a
     * confirm costs one round trip and one plan however big the batch (a batch of one
     * statement per row was a third of the drain's time in the benchmark). The same conditions as {@link Dialect#CONFIRM}.
     */
    static final String CONFIRM_BATCH = "UPDATE outbox_event e SET state = 'DELIVERED', delivered_at = ?,"
            + " broker_message_id = a.broker_message_id, broker_partition = a.broker_partition,"
            + " broker_offset = a.broker_offset, lease_until = NULL, last_error_class = NULL"
            + " FROM unnest(?::uuid[], ?::bigint[], ?::varchar[], ?::integer[], ?::bigint[])"
            + " AS a(event_id, lease_version, broker_message_id, broker_partition, broker_offset)"
            + " WHERE e.event_id = ANY (?::uuid[]) AND e.event_id = a.event_id AND e.claimed_by = ?"
            + " AND e.lease_version = a.lease_version AND (e.state || '') = 'PENDING' RETURNING e.event_id";

    /**
     * Issue 44: the confirm finds its rows by key, whatever the statistics say. Analyzed while empty, the table was
     * planned the cheap-looking way: every pending row read through the due index and filtered by claimer (36 ms at
     * 123,000 pending), or the batch's rows joined to the acknowledgements by a nested loop that compared each row
     * with each acknowledgement (250,000 comparisons for 500). So {@link #CONFIRM_BATCH} states the keys ({@code
     * = ANY}), writes its state check so that no partial index's condition follows from it ({@code state || ''}: only
     * the primary key can find the rows), and runs with no sequential or bitmap scan, no nested loop and no JIT for the
     * rest of its transaction (the parks and retries after it, rare single-row updates, are not rewritten so).
     */
    public static final String CONFIRM_PLAN_GUARD = "SELECT set_config('enable_seqscan', 'off', true),"
            + " set_config('enable_bitmapscan', 'off', true), set_config('enable_nestloop', 'off', true),"
            + " set_config('jit', 'off', true)";

    /** {@link #CONFIRM_BATCH}; public for the PostgreSQL contract's plan check. */
    public static String confirmStatement() {
        return CONFIRM_BATCH;
    }

    @Override
    public Set<UUID> confirm(Connection connection, String claimer, OffsetDateTime now, List<Delivery> deliveries)
            throws SQLException {
        Set<UUID> confirmed = new HashSet<>();
        if (deliveries.isEmpty()) {
            return confirmed;
        }
        try (PreparedStatement guard = connection.prepareStatement(CONFIRM_PLAN_GUARD)) {
            guard.executeQuery().close();
        }
        try (PreparedStatement confirm = connection.prepareStatement(CONFIRM_BATCH)) {
            bindConfirm(confirm, connection, claimer, now, deliveries);
            try (ResultSet rs = confirm.executeQuery()) {
                while (rs.next()) {
                    confirmed.add(rs.getObject("event_id", UUID.class));
                }
            }
        }
        return confirmed;
    }

    /** Binds {@link #CONFIRM_BATCH}'s parameters; public for the PostgreSQL contract's plan check. */
    public static void bindConfirm(PreparedStatement confirm, Connection connection, String claimer,
                                   OffsetDateTime now, List<Delivery> deliveries) throws SQLException {
        int n = deliveries.size();
        UUID[] ids = new UUID[n];
        Long[] leaseVersions = new Long[n];
        String[] brokerIds = new String[n];
        Integer[] partitions = new Integer[n];
        Long[] offsets = new Long[n];
        for (int i = 0; i < n; i++) {
            Delivery delivery = deliveries.get(i);
            ids[i] = delivery.eventId();
            leaseVersions[i] = delivery.leaseVersion();
            brokerIds[i] = delivery.brokerMessageId();
            partitions[i] = delivery.partition();
            offsets[i] = delivery.offset();
        }
        java.sql.Array keys = connection.createArrayOf("uuid", ids);
        confirm.setObject(1, now);
        confirm.setArray(2, keys);
        confirm.setArray(3, connection.createArrayOf("int8", leaseVersions));
        confirm.setArray(4, connection.createArrayOf("varchar", brokerIds));
        confirm.setArray(5, connection.createArrayOf("int4", partitions));
        confirm.setArray(6, connection.createArrayOf("int8", offsets));
        confirm.setArray(7, keys);
        confirm.setString(8, claimer);
    }

    /** ON CONFLICT DO NOTHING: a duplicate inserts nothing and, unlike a failed INSERT, keeps the tx usable. */
    @Override
    public boolean markProcessed(Connection connection, String consumer, UUID eventId, String aggregateType,
                                 String aggregateId, Long aggregateVersion, Long previousVersion, OffsetDateTime now,
                                 OffsetDateTime retainUntil) throws SQLException {
        try (PreparedStatement insert = connection.prepareStatement("INSERT INTO processed_event (consumer, event_id,"
                + " aggregate_type, aggregate_id, aggregate_version, processed_at, retain_until, previous_version)"
                + " VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (consumer, event_id) DO NOTHING")) {
            InboxMarks.bindMark(insert, consumer, eventId, aggregateType, aggregateId, aggregateVersion,
                    previousVersion, now, retainUntil);
            return insert.executeUpdate() == 1;
        }
    }

    @Override
    public void startHighWater(Connection connection, String consumer, String aggregateType, String aggregateId,
                               long highWater) throws SQLException {
        try (PreparedStatement insert = connection.prepareStatement("INSERT INTO inbox_high_water (consumer,"
                + " aggregate_type, aggregate_id, high_water) VALUES (?, ?, ?, ?)"
                + " ON CONFLICT (consumer, aggregate_type, aggregate_id) DO NOTHING")) {
            insert.setString(1, consumer);
            insert.setString(2, aggregateType);
            insert.setString(3, aggregateId);
            insert.setLong(4, highWater);
            insert.executeUpdate();
        }
    }

    @Override
    public void startRequester(Connection connection, String requester) throws SQLException {
        try (PreparedStatement insert = connection.prepareStatement("INSERT INTO outbox_replay_requester (requester)"
                + " VALUES (?) ON CONFLICT (requester) DO NOTHING")) {
            insert.setString(1, requester);
            insert.executeUpdate();
        }
    }
}
