package dev.outbox.internal.ops.replay;

import dev.outbox.OutboxEvent;
import dev.outbox.internal.ops.AdminRefusal;
import dev.outbox.internal.ops.OperatorRoles;
import dev.outbox.internal.ops.audit.AuditTrail;
import dev.outbox.internal.persistence.AuditRows;
import dev.outbox.internal.persistence.InboxMarks;
import dev.outbox.internal.persistence.OutboxDataSource;
import dev.outbox.internal.persistence.OutboxRows;
import dev.outbox.internal.persistence.ReplayRequests;
import dev.outbox.internal.persistence.SideEffectRows;
import dev.outbox.internal.persistence.Sql;
import dev.outbox.internal.publish.Publisher;
import jakarta.annotation.Resource;
import jakarta.annotation.security.DeclareRoles;
import jakarta.annotation.security.RolesAllowed;
import jakarta.ejb.EJB;
import jakarta.ejb.SessionContext;
import jakarta.ejb.Stateless;
import jakarta.ejb.TransactionAttribute;
import jakarta.ejb.TransactionAttributeType;
import jakarta.inject.Inject;
import org.eclipse.microprofile.config.Config;
import org.eclipse.microprofile.config.ConfigProvider;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;

/**
 * The replay tool (R9.2-R9.4). A replay sends delivered events again with their original event ids, so the
 * consumers' inboxes absorb them (R9.3): it puts the same rows back to pending, and the publisher does the rest,
 * with its claims, leases, ordering and confirms. A dry run ({@link #preview}) is the default at the API; a
 * replay of more than {@code outbox.replay.approval-threshold} events waits for a second, different person with
 * the approver role; the re-sends come due at {@code outbox.replay.rate-per-second}. Every request, approval,
 * rejection and replayed event is audited.
 *
 * <p>Re-executing a business action on purpose is not a replay: that is a new command with its own event id.
 */
@Stateless
@DeclareRoles({OperatorRoles.OPERATOR, OperatorRoles.APPROVER})
public class Replay {

    /** Who acts: the container's caller, never a name passed in (no code in the EAR approves as someone else). */
    @Resource
    SessionContext caller;

    private static final int SAMPLE = 100;

    @Inject
    OutboxDataSource database;

    @Inject
    AuditTrail audit;

    @EJB
    Publisher publisher;

    private record Candidate(UUID eventId, String aggregateType, String eventType, String state) {
    }

    /** What the replay would do; changes nothing. */
    @TransactionAttribute(TransactionAttributeType.SUPPORTS)
    @RolesAllowed({OperatorRoles.OPERATOR, OperatorRoles.APPROVER})
    public ReplayPlan preview(ReplaySelection selection) {
        try (Connection connection = database.connect()) {
            ReplaySettings settings = settings();
            return plan(connection, selection, settings, replayedWithoutApproval(connection,
                    caller.getCallerPrincipal().getName(), Sql.clock(connection).minus(settings.approvalWindow())));
        } catch (SQLException e) {
            throw new IllegalStateException("cannot preview the replay", e);
        }
    }

    /**
     * Asks for a replay: executed at once when, with what the caller replayed without a second approver over
     * {@code outbox.replay.approval-window}, it selects at most {@code outbox.replay.approval-threshold} events;
     * otherwise stored as awaiting approval, with the exact events it selected.
     */
    @RolesAllowed(OperatorRoles.OPERATOR)
    public ReplayDecision request(ReplaySelection selection, String reason) {
        AdminRefusal.requireReason(reason);
        String actor = caller.getCallerPrincipal().getName();
        ReplaySettings settings = settings();
        UUID requestId = UUID.randomUUID();
        try (Connection connection = database.connect()) {
            // R9.4: a parallel request of the same person waits here until this one committed, then counts it.
            database.dialect().lockRequester(connection, actor);
            OffsetDateTime now = Sql.clock(connection);
            long recently = replayedWithoutApproval(connection, actor, now.minus(settings.approvalWindow()));
            ReplayPlan plan = plan(connection, selection, settings, recently);
            if (plan.events() == 0) {
                throw new AdminRefusal(AdminRefusal.Kind.INVALID, "the selection holds no "
                        + selection.selectableState().toLowerCase(Locale.ROOT) + " event to "
                        + (selection.resumesParked() ? "resume" : "replay")
                        + (plan.skipped().isEmpty() ? "" : "; skipped: " + plan.skipped()));
            }
            boolean approvalRequired = plan.approvalRequired();
            try (PreparedStatement insert = connection.prepareStatement(ReplayRequests.REPLAY_REQUEST_INSERT)) {
                insert.setObject(1, requestId);
                insert.setObject(2, now);
                insert.setString(3, actor);
                insert.setString(4, reason.length() > 1000 ? reason.substring(0, 1000) : reason);
                insert.setString(5, selection.stored());
                insert.setInt(6, plan.events());
                insert.executeUpdate();
            }
            storeEvents(connection, requestId, plan.eventIds());
            audit.record(actor, "REPLAY_REQUESTED", null, requestId, "reason: " + reason + "; selection "
                    + selection.stored() + "; " + plan.events() + " events " + plan.byEventType()
                    + (approvalRequired ? "; awaits a second approver (" + (recently + plan.events())
                    + " events replayed without one within " + settings.approvalWindow() + ", more than "
                    + settings.approvalThreshold() + ")" : ""));
            if (approvalRequired) {
                return find(connection, requestId, 0);
            }
            return execute(connection, requestId, selection, plan.eventIds(), actor, settings);
        } catch (SQLException e) {
            throw new IllegalStateException("cannot request the replay", e);
        }
    }

    /**
     * A second person approves a waiting replay, which then runs on exactly the events stored with the request
     * (R9.4): never a selection recomputed now, which could hold more.
     */
    @RolesAllowed(OperatorRoles.APPROVER)
    public ReplayDecision approve(UUID requestId) {
        String approver = caller.getCallerPrincipal().getName();
        try (Connection connection = database.connect()) {
            ReplayDecision waiting = awaiting(connection, requestId, approver);
            List<UUID> stored = storedEvents(connection, requestId);
            if (stored.isEmpty()) {
                throw new AdminRefusal(AdminRefusal.Kind.CONFLICT, "replay " + requestId + " was requested before"
                        + " requests stored their exact events (schema V5): reject it and request it again");
            }
            if (stored.size() != waiting.eventCount()) {
                throw new IllegalStateException("replay " + requestId + " stored " + stored.size() + " events for a"
                        + " request of " + waiting.eventCount());
            }
            audit.record(approver, "REPLAY_APPROVED", null, requestId, "requested by " + waiting.requestedBy()
                    + " for " + waiting.eventCount() + " events");
            return execute(connection, requestId, ReplaySelection.parse(waiting.selection()), stored, approver,
                    settings());
        } catch (SQLException e) {
            throw new IllegalStateException("cannot approve replay " + requestId, e);
        }
    }

    /** A second person turns a waiting replay down; nothing is sent. */
    @RolesAllowed(OperatorRoles.APPROVER)
    public ReplayDecision reject(UUID requestId, String reason) {
        AdminRefusal.requireReason(reason);
        String approver = caller.getCallerPrincipal().getName();
        try (Connection connection = database.connect()) {
            ReplayDecision waiting = awaiting(connection, requestId, approver);
            decide(connection, requestId, "REJECTED", approver);
            audit.record(approver, "REPLAY_REJECTED", null, requestId, "reason: " + reason + "; requested by "
                    + waiting.requestedBy());
            return find(connection, requestId, 0);
        } catch (SQLException e) {
            throw new IllegalStateException("cannot reject replay " + requestId, e);
        }
    }

    @TransactionAttribute(TransactionAttributeType.SUPPORTS)
    @RolesAllowed({OperatorRoles.OPERATOR, OperatorRoles.APPROVER})
    public ReplayDecision show(UUID requestId) {
        try (Connection connection = database.connect()) {
            return find(connection, requestId, 0);
        } catch (SQLException e) {
            throw new IllegalStateException("cannot read replay " + requestId, e);
        }
    }

    /** The requests waiting for a second person (R9.4), oldest first. */
    @TransactionAttribute(TransactionAttributeType.SUPPORTS)
    @RolesAllowed({OperatorRoles.OPERATOR, OperatorRoles.APPROVER})
    public List<ReplayDecision> waiting(int limit) {
        try (Connection connection = database.connect();
             PreparedStatement select = connection.prepareStatement(ReplayRequests.REPLAY_REQUESTS_WAITING)) {
            select.setInt(1, limit);
            List<ReplayDecision> waiting = new ArrayList<>();
            try (ResultSet rs = select.executeQuery()) {
                while (rs.next()) {
                    waiting.add(read(rs, 0, Map.of()));
                }
            }
            return waiting;
        } catch (SQLException e) {
            throw new IllegalStateException("cannot list waiting replay requests", e);
        }
    }

    private ReplayDecision awaiting(Connection connection, UUID requestId, String approver) throws SQLException {
        ReplayDecision request = find(connection, requestId, 0);
        if (!request.state().equals("AWAITING_APPROVAL")) {
            throw new AdminRefusal(AdminRefusal.Kind.CONFLICT, "replay " + requestId + " is " + request.state()
                    + " already (decided by " + request.decidedBy() + ")");
        }
        if (request.requestedBy().equals(approver)) {
            throw new AdminRefusal(AdminRefusal.Kind.FORBIDDEN, "replay " + requestId + " was requested by "
                    + approver + ": a second, different person must approve it (R9.4)");
        }
        return request;
    }

    /**
     * Makes the request's events due again where they are still in the state it selected (delivered for a replay,
     * parked for a bulk resume), spread out by the rate limit, and audits each one.
     */
    private ReplayDecision execute(Connection connection, UUID requestId, ReplaySelection selection,
                                   List<UUID> eventIds, String actor, ReplaySettings settings) throws SQLException {
        OffsetDateTime start = Sql.clock(connection); // due times are checked on the database's clock
        boolean resume = selection.resumesParked();
        long nanosApart = 1_000_000_000L / settings.ratePerSecond();
        int replayed = 0;
        try (PreparedStatement update = connection.prepareStatement(resume ? OutboxRows.RESUME_PARKED : OutboxRows.REPLAY_ONE);
             PreparedStatement trail = connection.prepareStatement(AuditRows.AUDIT_INSERT)) {
            for (UUID eventId : eventIds) {
                // R9.4: the k-th event is due k/rate seconds from now, so the publisher re-sends at that rate.
                update.setObject(1, start.plusNanos(nanosApart * replayed));
                update.setObject(2, eventId);
                if (update.executeUpdate() == 1) {
                    trail.setObject(1, UUID.randomUUID());
                    trail.setObject(2, start);
                    trail.setString(3, actor);
                    trail.setString(4, resume ? "RESUMED" : "REPLAYED");
                    trail.setObject(5, eventId);
                    trail.setObject(6, requestId);
                    trail.setString(7, resume ? "resumed in bulk (parked with " + selection.parkedWith()
                            + ") with its original event id" : "sent again with its original event id");
                    trail.addBatch();
                    replayed++;
                }
            }
            if (replayed > 0) {
                trail.executeBatch();
            }
        }
        decide(connection, requestId, "EXECUTED", actor);
        audit.record(actor, "REPLAY_EXECUTED", null, requestId, replayed + " of " + eventIds.size()
                + " requested events due again at " + settings.ratePerSecond() + "/s"
                + (replayed < eventIds.size() ? "; the others are no longer " + selection.selectableState()
                + " (changed meanwhile, or cleaned up)" : ""));
        return find(connection, requestId, replayed);
    }

    /** @param alreadyReplayed what the caller replayed without a second approver within the approval window */
    private ReplayPlan plan(Connection connection, ReplaySelection selection, ReplaySettings settings,
                            long alreadyReplayed) throws SQLException {
        List<Candidate> candidates = select(connection, selection, settings);
        List<UUID> ids = new ArrayList<>();
        Map<String, String> skipped = new LinkedHashMap<>();
        Map<String, Long> byType = new TreeMap<>();
        Map<String, Long> destinations = new TreeMap<>();
        for (Candidate candidate : candidates) {
            if (candidate.state() == null) {
                skipped.put(candidate.eventId().toString(), "no such event (never recorded, or cleaned up)");
            } else if (!candidate.state().equals(selection.selectableState())) {
                skipped.put(candidate.eventId().toString(), candidate.state() + ": only delivered events are replayed"
                        + (candidate.state().equals("PARKED") ? "; resume a parked one instead (parkedWith)" : ""));
            } else {
                ids.add(candidate.eventId());
                byType.merge(candidate.eventType(), 1L, Long::sum);
                // A destination depends on the event and aggregate types only (queues and topic templates).
                OutboxEvent shape = new OutboxEvent(candidate.aggregateType(), "-", 1, candidate.eventType(), 1,
                        "{}", null);
                for (String destination : publisher.destinationsOf(shape)) {
                    destinations.merge(destination, 1L, Long::sum);
                }
            }
        }
        List<UUID> sample = ids.subList(0, Math.min(SAMPLE, ids.size()));
        Map<String, Long> consumers = new TreeMap<>();
        Map<String, Long> sideEffects = new TreeMap<>();
        if (!sample.isEmpty()) {
            try (PreparedStatement select = connection.prepareStatement(InboxMarks.consumersOf(sample.size()))) {
                bindIds(select, sample);
                try (ResultSet rs = select.executeQuery()) {
                    while (rs.next()) {
                        consumers.put(rs.getString("consumer"), rs.getLong("events"));
                    }
                }
            }
            try (PreparedStatement select = connection.prepareStatement(SideEffectRows.sideEffectsOf(sample.size()))) {
                bindIds(select, sample);
                try (ResultSet rs = select.executeQuery()) {
                    while (rs.next()) {
                        sideEffects.put(rs.getString("consumer") + "/" + rs.getString("effect") + " " + rs.getString("state"),
                                rs.getLong("events"));
                    }
                }
            }
        }
        return new ReplayPlan(List.copyOf(ids), skipped, byType, destinations, consumers, sideEffects, sample.size(),
                alreadyReplayed + ids.size() > settings.approvalThreshold(),
                Duration.ofNanos(1_000_000_000L / settings.ratePerSecond() * ids.size()));
    }

    private static List<Candidate> select(Connection connection, ReplaySelection selection, ReplaySettings settings)
            throws SQLException {
        List<Candidate> candidates = new ArrayList<>();
        if (selection.byIds()) {
            try (PreparedStatement select = connection.prepareStatement(OutboxRows.EVENT_BY_ID)) {
                for (UUID id : selection.eventIds()) {
                    select.setObject(1, id);
                    try (ResultSet rs = select.executeQuery()) {
                        candidates.add(rs.next() ? new Candidate(id, rs.getString("aggregate_type"),
                                rs.getString("event_type"), rs.getString("state")) : new Candidate(id, null, null, null));
                    }
                }
            }
            return candidates;
        }
        if (selection.resumesParked()) {
            boolean oneType = selection.eventType() != null;
            try (PreparedStatement select = connection.prepareStatement(OutboxRows.parkedWith(oneType))) {
                int index = 1;
                select.setString(index++, selection.parkedWith());
                if (oneType) {
                    select.setString(index++, selection.eventType());
                }
                select.setInt(index, settings.maxEvents() + 1);
                readCandidates(select, candidates);
            }
        } else {
            boolean oneType = selection.eventType() != null;
            try (PreparedStatement select = connection.prepareStatement(OutboxRows.replayRange(oneType))) {
                int index = 1;
                select.setObject(index++, selection.from());
                select.setObject(index++, selection.to());
                if (oneType) {
                    select.setString(index++, selection.eventType());
                }
                select.setInt(index, settings.maxEvents() + 1);
                readCandidates(select, candidates);
            }
        }
        if (candidates.size() > settings.maxEvents()) {
            throw new AdminRefusal(AdminRefusal.Kind.INVALID, "the selection holds more than " + settings.maxEvents()
                    + " events (setting outbox.replay.max-events): split it into smaller ranges or types");
        }
        return candidates;
    }

    private static void readCandidates(PreparedStatement select, List<Candidate> candidates) throws SQLException {
        try (ResultSet rs = select.executeQuery()) {
            while (rs.next()) {
                candidates.add(new Candidate(rs.getObject("event_id", UUID.class), rs.getString("aggregate_type"),
                        rs.getString("event_type"), rs.getString("state")));
            }
        }
    }

    private static void storeEvents(Connection connection, UUID requestId, List<UUID> eventIds) throws SQLException {
        try (PreparedStatement insert = connection.prepareStatement(ReplayRequests.REPLAY_REQUEST_EVENT_INSERT)) {
            for (int i = 0; i < eventIds.size(); i++) {
                insert.setObject(1, requestId);
                insert.setInt(2, i);
                insert.setObject(3, eventIds.get(i));
                insert.addBatch();
            }
            insert.executeBatch();
        }
    }

    private static List<UUID> storedEvents(Connection connection, UUID requestId) throws SQLException {
        List<UUID> ids = new ArrayList<>();
        try (PreparedStatement select = connection.prepareStatement(ReplayRequests.REPLAY_REQUEST_EVENTS)) {
            select.setObject(1, requestId);
            try (ResultSet rs = select.executeQuery()) {
                while (rs.next()) {
                    ids.add(rs.getObject("event_id", UUID.class));
                }
            }
        }
        return ids;
    }

    private static long replayedWithoutApproval(Connection connection, String actor, OffsetDateTime since)
            throws SQLException {
        try (PreparedStatement select = connection.prepareStatement(ReplayRequests.REPLAYED_UNAPPROVED_SINCE)) {
            select.setString(1, actor);
            select.setObject(2, since);
            try (ResultSet rs = select.executeQuery()) {
                rs.next();
                return rs.getLong("events");
            }
        }
    }

    private static void bindIds(PreparedStatement statement, List<UUID> ids) throws SQLException {
        for (int i = 0; i < ids.size(); i++) {
            statement.setObject(i + 1, ids.get(i));
        }
    }

    private static void decide(Connection connection, UUID requestId, String state, String actor)
            throws SQLException {
        try (PreparedStatement update = connection.prepareStatement(ReplayRequests.REPLAY_REQUEST_DECIDE)) {
            update.setString(1, state);
            update.setString(2, actor);
            update.setObject(3, now());
            update.setObject(4, requestId);
            if (update.executeUpdate() != 1) {
                throw new AdminRefusal(AdminRefusal.Kind.CONFLICT, "replay " + requestId + " was decided meanwhile");
            }
        }
    }

    private static ReplayDecision find(Connection connection, UUID requestId, int replayed) throws SQLException {
        ReplayDecision request;
        try (PreparedStatement select = connection.prepareStatement(ReplayRequests.REPLAY_REQUEST_BY_ID)) {
            select.setObject(1, requestId);
            try (ResultSet rs = select.executeQuery()) {
                if (!rs.next()) {
                    throw new AdminRefusal(AdminRefusal.Kind.NOT_FOUND, "no replay request " + requestId);
                }
                request = read(rs, replayed, Map.of());
            }
        }
        if (!request.state().equals("EXECUTED")) {
            return request;
        }
        Map<String, Long> progress = new TreeMap<>();
        try (PreparedStatement count = connection.prepareStatement(ReplayRequests.REPLAY_REQUEST_PROGRESS)) {
            count.setObject(1, requestId);
            try (ResultSet rs = count.executeQuery()) {
                while (rs.next()) {
                    progress.put(rs.getString("state"), rs.getLong("events"));
                }
            }
        }
        return new ReplayDecision(request.requestId(), request.state(), request.requestedBy(), request.reason(),
                request.selection(), request.eventCount(), request.decidedBy(), request.decidedAt(), replayed, progress);
    }

    private static ReplayDecision read(ResultSet rs, int replayed, Map<String, Long> progress) throws SQLException {
        return new ReplayDecision(rs.getObject("request_id", UUID.class), rs.getString("state"),
                rs.getString("requested_by"), rs.getString("reason"), rs.getString("selection"),
                rs.getInt("event_count"), rs.getString("decided_by"), rs.getObject("decided_at", OffsetDateTime.class),
                replayed, progress);
    }

    private static ReplaySettings settings() {
        Config config = ConfigProvider.getConfig();
        return ReplaySettings.read(name -> config.getOptionalValue(name, String.class));
    }

    private static OffsetDateTime now() {
        return OffsetDateTime.now(ZoneOffset.UTC);
    }
}
