package dev.outbox.internal.persistence;

import dev.outbox.EventId;
import dev.outbox.OutboxEvent;
import dev.outbox.TraceContext;
import dev.outbox.spi.OutboundEvent;

import java.net.URI;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;

/**
 * The claim procedure the three dialects share (R4.1-R4.3, R4.6): which rows are due, the runs a strict head takes
 * with it, how claimed rows are read back and in which order they are sent. {@link Dialect#claim} does the part
 * that differs: lease by compare-and-set on H2, {@code FOR UPDATE SKIP LOCKED} on PostgreSQL and MariaDB.
 */
public final class Claims {

    /** The columns a claim returns, in {@link #readClaimed} order. */
    public static final String CLAIMED_COLUMNS = "event_id, aggregate_type, aggregate_id, aggregate_version, event_type, schema_version,"
            + " payload, payload_ref, created_at, attempts, lease_version, publish_mode, trace_parent, trace_state,"
            + " previous_versions";

    /** Takes a follower into the claim of its head: still pending and due, as the walk saw it. */
    public static final String TAKE_FOLLOWER = "UPDATE outbox_event SET claimed_by = ?, lease_version = lease_version + 1,"
            + " lease_until = ?, next_attempt_at = ?, attempts = attempts + 1"
            + " WHERE event_id = ? AND state = 'PENDING' AND next_attempt_at <= ?";

    /** Binds the candidate filter's parameters from {@code index} on; returns the next free index. */
    public static int bindCandidates(PreparedStatement statement, int index, ClaimRequest request, OffsetDateTime now)
            throws SQLException {
        statement.setObject(index++, now);
        for (String type : request.exceptions()) {
            statement.setString(index++, type);
        }
        statement.setInt(index++, request.limit());
        return index;
    }

    /** How the followers a claim's walk chose are leased and read back: {@link #leaseFollowers}, or a dialect's. */
    @FunctionalInterface
    public interface FollowerLease {
        List<OutboundEvent> lease(Connection connection, ClaimRequest request, List<UUID> run, OffsetDateTime now,
                                  OffsetDateTime leaseUntil) throws SQLException;
    }

    /** The statement {@link #withRuns} reads a claim's followers with: a dialect's, or {@link #followersOf}. */
    @FunctionalInterface
    public interface FollowersQuery {
        /**
         * @param heads how many strict heads it binds ({@code event_id IN (...)}), first
         * @param limit the most rows one head's range may answer: the run's room plus the batch's rows the walk skips
         *              there (a statement may ignore it; its last parameter bounds the whole answer)
         */
        String sql(int heads, int limit);
    }

    /**
     * The undelivered versions after a claim's strict heads, lowest first per aggregate, for {@link #withRuns}: at
     * most as many rows as its last parameter, on the undelivered-versions index ({@code limit} is not used). H2's and
     * MariaDB's; PostgreSQL reads them per head ({@link PostgreSqlDialect#followersOf}).
     */
    public static String followersOf(int heads, int limit) {
        return "SELECT f.event_id, f.aggregate_type, f.aggregate_id, f.state, f.next_attempt_at, f.event_type"
                + " FROM outbox_event f"
                + " JOIN outbox_event h ON h.aggregate_type = f.aggregate_type AND h.aggregate_id = f.aggregate_id"
                + " AND f.aggregate_version > h.aggregate_version WHERE h.event_id IN (" + Sql.placeholders(heads) + ")"
                + " AND f.state <> 'DELIVERED' ORDER BY f.aggregate_type, f.aggregate_id, f.aggregate_version"
                + " FETCH FIRST ? ROWS ONLY";
    }

    /**
     * R4.6: a claim that holds the head of a strict aggregate (its lowest undelivered version) also
     * takes the versions after it while they are pending and due, up to the batch limit, so a hot aggregate drains
     * a run per round trip instead of one version. No other claim can take them: a strict version is a candidate
     * only once every earlier one is delivered, and the head is leased to this claim. The run stops at the first
     * version that is parked, in backoff, leased or independent (R4.6); the sends stop it at its first failure
     * ({@link dev.outbox.internal.transport.StrictRuns}). Runs in the claim's transaction.
     */
    public static List<OutboundEvent> withRuns(Connection connection, ClaimRequest request, List<OutboundEvent> heads,
                                        OffsetDateTime now, OffsetDateTime leaseUntil, FollowersQuery followers)
            throws SQLException {
        return withRuns(connection, request, heads, now, leaseUntil, followers, Claims::leaseFollowers);
    }

    /** {@link #withRuns} with a dialect's way of leasing the followers it chose. */
    public static List<OutboundEvent> withRuns(Connection connection, ClaimRequest request, List<OutboundEvent> heads,
                                        OffsetDateTime now, OffsetDateTime leaseUntil, FollowersQuery followers,
                                        FollowerLease lease) throws SQLException {
        int room = request.limit() - heads.size();
        List<UUID> strictHeads = heads.stream().filter(e -> e.ordering() == dev.outbox.Ordering.STRICT)
                .map(e -> e.id().value()).toList();
        if (room <= 0 || strictHeads.isEmpty()) {
            return heads;
        }
        Set<UUID> inBatch = new HashSet<>();
        heads.forEach(e -> inBatch.add(e.id().value()));
        List<UUID> run = new ArrayList<>();
        // Per head, room plus the batch's other heads: those the walk skips (independent versions of the same
        // aggregate, the only ones that can sit in a strict head's range) must not use up what the run may take.
        int perHead = room + heads.size() - strictHeads.size();
        try (PreparedStatement select = connection.prepareStatement(followers.sql(strictHeads.size(), perHead))) {
            for (int i = 0; i < strictHeads.size(); i++) {
                select.setObject(i + 1, strictHeads.get(i));
            }
            select.setInt(strictHeads.size() + 1, room + heads.size());
            try (ResultSet rs = select.executeQuery()) {
                String aggregate = null;
                boolean stopped = false;
                while (rs.next() && room > 0) {
                    UUID id = rs.getObject("event_id", UUID.class);
                    String key = rs.getString("aggregate_type") + '\u0000' + rs.getString("aggregate_id");
                    if (!key.equals(aggregate)) {
                        aggregate = key;
                        stopped = false;
                    }
                    if (stopped || inBatch.contains(id)) {
                        continue;
                    }
                    if ("PENDING".equals(rs.getString("state"))
                            && !rs.getObject("next_attempt_at", OffsetDateTime.class).isAfter(now)
                            && request.orderingOf(rs.getString("event_type")) == dev.outbox.Ordering.STRICT) {
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
        List<OutboundEvent> all = new ArrayList<>(heads);
        all.addAll(lease.lease(connection, request, run, now, leaseUntil));
        return inSendOrder(all);
    }

    /**
     * Leases a claim's followers one statement each ({@link #TAKE_FOLLOWER}, as one JDBC batch) and reads them back.
     * H2's and MariaDB's; PostgreSQL leases and returns them in one statement found by key.
     */
    public static List<OutboundEvent> leaseFollowers(Connection connection, ClaimRequest request, List<UUID> run,
                                                     OffsetDateTime now, OffsetDateTime leaseUntil) throws SQLException {
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
        try (PreparedStatement read = connection.prepareStatement("SELECT " + CLAIMED_COLUMNS + " FROM outbox_event"
                + " WHERE claimed_by = ? AND event_id IN (" + Sql.placeholders(run.size()) + ")")) {
            read.setString(1, request.claimer());
            for (int i = 0; i < run.size(); i++) {
                read.setObject(i + 2, run.get(i));
            }
            try (ResultSet rs = read.executeQuery()) {
                return readClaimed(rs, request);
            }
        }
    }

    /** The due-row filter every dialect shares; {@code e} is outbox_event. */
    public static String candidates(ClaimRequest request) {
        return "FROM outbox_event e WHERE e.state = 'PENDING' AND e.next_attempt_at <= ?"
                + orderingCondition(request) + " ORDER BY e.next_attempt_at FETCH FIRST ? ROWS ONLY";
    }

    /**
     * The order a claimed batch is sent in: as recorded, except that one aggregate's versions always go in
     * version order, whatever the clocks of the servers that recorded them said.
     */
    public static List<OutboundEvent> inSendOrder(List<OutboundEvent> claimed) {
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

    public static List<OutboundEvent> readClaimed(ResultSet rs, ClaimRequest request) throws SQLException {
        List<OutboundEvent> claimed = new ArrayList<>();
        while (rs.next()) {
            String reference = rs.getString("payload_ref");
            OutboxEvent event = new OutboxEvent(rs.getString("aggregate_type"), rs.getString("aggregate_id"),
                    rs.getLong("aggregate_version"), rs.getString("event_type"), rs.getInt("schema_version"),
                    rs.getString("payload"), reference == null ? null : URI.create(reference));
            claimed.add(new OutboundEvent(new EventId(rs.getObject("event_id", UUID.class)), event,
                    rs.getObject("created_at", OffsetDateTime.class), rs.getInt("attempts"), rs.getLong("lease_version"),
                    "SHADOW".equals(rs.getString("publish_mode")), request.orderingOf(event.eventType()),
                    // R6.7: a damaged context on a row (written by hand) is sent as none rather than failing the claim
                    TraceContext.read(rs.getString("trace_parent"), rs.getString("trace_state")).orElse(null),
                    rs.getString("previous_versions")));
        }
        // RETURNING and a CAS loop hand rows back in no defined order; the transports keep the batch's order, so
        // put one aggregate's versions in order here (R9.1), also for independent types that share a batch.
        return inSendOrder(claimed);
    }

    /**
     * The claim filter of the ordering policy: a strict event is due only when every earlier version of its
     * aggregate is delivered, so a failed or parked event blocks the versions after it (R4.6). The unique key
     * on (aggregate_type, aggregate_id, aggregate_version) serves the sub-query.
     */
    static String orderingCondition(ClaimRequest request) {
        String earlierUndelivered = "NOT EXISTS (SELECT 1 FROM outbox_event p WHERE p.aggregate_type = e.aggregate_type"
                + " AND p.aggregate_id = e.aggregate_id AND p.aggregate_version < e.aggregate_version"
                + " AND p.state <> 'DELIVERED')";
        String listed = request.exceptions().isEmpty() ? null : "e.event_type IN ("
                + String.join(", ", request.exceptions().stream().map(t -> "?").toList()) + ")";
        if (request.strictByDefault()) {
            return listed == null ? " AND " + earlierUndelivered : " AND (" + listed + " OR " + earlierUndelivered + ")";
        }
        return listed == null ? "" : " AND (NOT " + listed + " OR " + earlierUndelivered + ")";
    }

    private Claims() {
    }
}
