package dev.outbox.internal.ops.replay;

import dev.outbox.OutboxEvent;
import dev.outbox.internal.ops.AdminRefusal;
import dev.outbox.internal.ops.OperatorRoles;
import dev.outbox.internal.ops.audit.AuditTrail;
import dev.outbox.internal.persistence.AuditEntry;
import dev.outbox.internal.persistence.ReplayRequests;
import dev.outbox.internal.persistence.StoredEvent;
import dev.outbox.internal.persistence.StoredEvents;
import dev.outbox.internal.protocol.Resend;
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

import java.time.Duration;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
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
    AuditTrail audit;

    @EJB
    Publisher publisher;

    @Inject
    StoredEvents events;

    @Inject
    ReplayRequests requests;

    /** What the replay would do; changes nothing. */
    @TransactionAttribute(TransactionAttributeType.SUPPORTS)
    @RolesAllowed({OperatorRoles.OPERATOR, OperatorRoles.APPROVER})
    public ReplayPlan preview(ReplaySelection selection) {
        ReplaySettings settings = settings();
        return plan(selection, settings, requests.replayedWithoutApproval(caller.getCallerPrincipal().getName(),
                events.clock().minus(settings.approvalWindow())));
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
        // R9.4: a parallel request of the same person waits here until this one committed, then counts it.
        requests.lockRequester(actor);
        OffsetDateTime now = events.clock();
        long recently = requests.replayedWithoutApproval(actor, now.minus(settings.approvalWindow()));
        ReplayPlan plan = plan(selection, settings, recently);
        if (plan.events() == 0) {
            throw new AdminRefusal(AdminRefusal.Kind.INVALID, "the selection holds no "
                    + selection.selectableState().toLowerCase(Locale.ROOT) + " event to "
                    + (selection.resumesParked() ? "resume" : "replay")
                    + (plan.skipped().isEmpty() ? "" : "; skipped: " + plan.skipped()));
        }
        boolean approvalRequired = plan.approvalRequired();
        requests.insert(requestId, now, actor, reason, selection.stored(), plan.eventIds());
        audit.record(actor, "REPLAY_REQUESTED", null, requestId, "reason: " + reason + "; selection "
                + selection.stored() + "; " + plan.events() + " events " + plan.byEventType()
                + (approvalRequired ? "; awaits a second approver (" + (recently + plan.events())
                + " events replayed without one within " + settings.approvalWindow() + ", more than "
                + settings.approvalThreshold() + ")" : ""));
        if (approvalRequired) {
            return find(requestId, 0);
        }
        return execute(requestId, selection, plan.eventIds(), actor, settings);
    }

    /**
     * A second person approves a waiting replay, which then runs on exactly the events stored with the request
     * (R9.4): never a selection recomputed now, which could hold more.
     */
    @RolesAllowed(OperatorRoles.APPROVER)
    public ReplayDecision approve(UUID requestId) {
        String approver = caller.getCallerPrincipal().getName();
        ReplayDecision waiting = awaiting(requestId, approver);
        List<UUID> stored = requests.events(requestId);
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
        return execute(requestId, ReplaySelection.parse(waiting.selection()), stored, approver, settings());
    }

    /** A second person turns a waiting replay down; nothing is sent. */
    @RolesAllowed(OperatorRoles.APPROVER)
    public ReplayDecision reject(UUID requestId, String reason) {
        AdminRefusal.requireReason(reason);
        String approver = caller.getCallerPrincipal().getName();
        ReplayDecision waiting = awaiting(requestId, approver);
        decide(requestId, "REJECTED", approver);
        audit.record(approver, "REPLAY_REJECTED", null, requestId, "reason: " + reason + "; requested by "
                + waiting.requestedBy());
        return find(requestId, 0);
    }

    @TransactionAttribute(TransactionAttributeType.SUPPORTS)
    @RolesAllowed({OperatorRoles.OPERATOR, OperatorRoles.APPROVER})
    public ReplayDecision show(UUID requestId) {
        return find(requestId, 0);
    }

    /** The requests waiting for a second person (R9.4), oldest first. */
    @TransactionAttribute(TransactionAttributeType.SUPPORTS)
    @RolesAllowed({OperatorRoles.OPERATOR, OperatorRoles.APPROVER})
    public List<ReplayDecision> waiting(int limit) {
        return requests.waiting(limit).stream().map(request -> decision(request, 0, Map.of())).toList();
    }

    private ReplayDecision awaiting(UUID requestId, String approver) {
        ReplayDecision request = find(requestId, 0);
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
    private ReplayDecision execute(UUID requestId, ReplaySelection selection, List<UUID> eventIds, String actor,
                                   ReplaySettings settings) {
        boolean resume = selection.resumesParked();
        Resend resend = new Resend(events);
        StoredEvents.MadeDue due = resume ? resend.resume(eventIds, settings.ratePerSecond())
                : resend.replay(eventIds, settings.ratePerSecond());
        String detail = resume ? "resumed in bulk (parked with " + selection.parkedWith()
                + ") with its original event id" : "sent again with its original event id";
        audit.recordEach(due.eventIds().stream().map(eventId -> new AuditEntry(UUID.randomUUID(), due.start(), actor,
                resume ? "RESUMED" : "REPLAYED", eventId, requestId, detail)).toList());
        int replayed = due.eventIds().size();
        decide(requestId, "EXECUTED", actor);
        audit.record(actor, "REPLAY_EXECUTED", null, requestId, replayed + " of " + eventIds.size()
                + " requested events due again at " + settings.ratePerSecond() + "/s"
                + (replayed < eventIds.size() ? "; the others are no longer " + selection.selectableState()
                + " (changed meanwhile, or cleaned up)" : ""));
        return find(requestId, replayed);
    }

    /** @param alreadyReplayed what the caller replayed without a second approver within the approval window */
    private ReplayPlan plan(ReplaySelection selection, ReplaySettings settings, long alreadyReplayed) {
        List<UUID> ids = new ArrayList<>();
        Map<String, String> skipped = new LinkedHashMap<>();
        Map<String, Long> byType = new TreeMap<>();
        Map<String, Long> destinations = new TreeMap<>();
        for (Candidate candidate : select(selection, settings)) {
            StoredEvent event = candidate.event();
            if (event == null) {
                skipped.put(candidate.eventId().toString(), "no such event (never recorded, or cleaned up)");
            } else if (!event.state().equals(selection.selectableState())) {
                skipped.put(candidate.eventId().toString(), event.state() + ": only delivered events are replayed"
                        + (event.state().equals("PARKED") ? "; resume a parked one instead (parkedWith)" : ""));
            } else {
                ids.add(event.eventId());
                byType.merge(event.eventType(), 1L, Long::sum);
                // A destination depends on the event and aggregate types only (queues and topic templates).
                OutboxEvent shape = new OutboxEvent(event.aggregateType(), "-", 1, event.eventType(), 1, "{}", null);
                for (String destination : publisher.destinationsOf(shape)) {
                    destinations.merge(destination, 1L, Long::sum);
                }
            }
        }
        List<UUID> sample = ids.subList(0, Math.min(SAMPLE, ids.size()));
        return new ReplayPlan(List.copyOf(ids), skipped, byType, destinations, requests.appliedBy(sample),
                requests.sideEffectsOf(sample), sample.size(),
                alreadyReplayed + ids.size() > settings.approvalThreshold(),
                Duration.ofNanos(1_000_000_000L / settings.ratePerSecond() * ids.size()));
    }

    /** A selected id and its event, null where there is none. */
    private record Candidate(UUID eventId, StoredEvent event) {
    }

    private List<Candidate> select(ReplaySelection selection, ReplaySettings settings) {
        if (selection.byIds()) {
            List<Optional<StoredEvent>> found = events.byIds(selection.eventIds());
            List<Candidate> candidates = new ArrayList<>();
            for (int i = 0; i < found.size(); i++) {
                candidates.add(new Candidate(selection.eventIds().get(i), found.get(i).orElse(null)));
            }
            return candidates;
        }
        List<StoredEvent> selected = selection.resumesParked()
                ? events.parkedWith(selection.parkedWith(), selection.eventType(), settings.maxEvents() + 1)
                : events.delivered(selection.from(), selection.to(), selection.eventType(), settings.maxEvents() + 1);
        if (selected.size() > settings.maxEvents()) {
            throw new AdminRefusal(AdminRefusal.Kind.INVALID, "the selection holds more than " + settings.maxEvents()
                    + " events (setting outbox.replay.max-events): split it into smaller ranges or types");
        }
        return selected.stream().map(event -> new Candidate(event.eventId(), event)).toList();
    }

    private void decide(UUID requestId, String state, String actor) {
        if (!requests.decide(requestId, state, actor, OffsetDateTime.now(ZoneOffset.UTC))) {
            throw new AdminRefusal(AdminRefusal.Kind.CONFLICT, "replay " + requestId + " was decided meanwhile");
        }
    }

    private ReplayDecision find(UUID requestId, int replayed) {
        ReplayRequests.Request request = requests.find(requestId).orElseThrow(
                () -> new AdminRefusal(AdminRefusal.Kind.NOT_FOUND, "no replay request " + requestId));
        return decision(request, replayed,
                request.state().equals("EXECUTED") ? requests.progress(requestId) : Map.of());
    }

    private static ReplayDecision decision(ReplayRequests.Request request, int replayed, Map<String, Long> progress) {
        return new ReplayDecision(request.requestId(), request.state(), request.requestedBy(), request.reason(),
                request.selection(), request.eventCount(), request.decidedBy(), request.decidedAt(), replayed,
                progress);
    }

    private static ReplaySettings settings() {
        Config config = ConfigProvider.getConfig();
        return ReplaySettings.read(name -> config.getOptionalValue(name, String.class));
    }
}
