package dev.outbox.internal.ops.replay;

import dev.outbox.InvalidEventException;
import dev.outbox.OutboxEvent;
import dev.outbox.internal.config.OutboxSettings;
import dev.outbox.internal.ops.AdminRefusal;
import dev.outbox.internal.ops.OperatorRoles;
import dev.outbox.internal.ops.audit.AuditTrail;
import dev.outbox.internal.persistence.AuditEntry;
import dev.outbox.internal.persistence.ReplayRequests;
import dev.outbox.internal.persistence.StoredEvent;
import dev.outbox.internal.persistence.StoredEvents;
import dev.outbox.internal.protocol.Resend;
import dev.outbox.internal.publish.Publisher;
import dev.outbox.internal.record.EventValidation;
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

import java.net.URI;
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
 * <p>The same two-person rule covers a parked event resumed alone ({@link #requestResume}) and a parked event's content
 * changed ({@link #requestFix}): each counts as one event with the person's replays, so N single resumes need the
 * second person a bulk resume of N would, and above the threshold a content change waits for an approver who is shown
 * it as a diff ({@link #show}) and whose approval applies exactly that change.
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

    @Inject
    OutboxSettings outboxSettings;

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
        Admission admission = admit(actor, 0, settings);
        OffsetDateTime now = admission.now();
        long recently = admission.recently();
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
        RequestKind kind = RequestKind.of(waiting.selection());
        audit.record(approver, kind.audited("APPROVED"), kind == RequestKind.REPLAY ? null : stored.get(0), requestId,
                "requested by " + waiting.requestedBy() + " for " + waiting.eventCount() + " events");
        return switch (kind) {
            case RESUME -> resumeOne(requestId, stored.get(0), waiting.requestedBy(), approver, waiting.reason());
            case REPAIR -> applyChange(requestId, requests.contentChange(requestId).orElseThrow(
                    () -> new IllegalStateException("repair request " + requestId + " stored no content change")),
                    waiting.requestedBy(), approver, waiting.reason());
            case REPLAY -> execute(requestId, ReplaySelection.parse(waiting.selection()), stored, approver, settings());
        };
    }

    /**
     * Resumes one parked event with its event id (R6.6): at once when, with what the caller re-sent and changed
     * without a second approver over {@code outbox.replay.approval-window}, it stays within
     * {@code outbox.replay.approval-threshold}; otherwise it waits for a second person (R9.4).
     */
    @RolesAllowed(OperatorRoles.OPERATOR)
    public ReplayDecision requestResume(UUID eventId, String reason) {
        AdminRefusal.requireReason(reason);
        String actor = caller.getCallerPrincipal().getName();
        requireParked(event(eventId));
        UUID requestId = UUID.randomUUID();
        Admission admission = admit(actor, 1, settings());
        requests.insert(requestId, admission.now(), actor, reason, RequestKind.RESUME_PREFIX + eventId,
                List.of(eventId));
        if (!admission.approvalRequired()) {
            return resumeOne(requestId, eventId, actor, actor, reason);
        }
        audit.record(actor, RequestKind.RESUME.audited("REQUESTED"), eventId, requestId, "reason: " + reason
                + "; awaits a second approver (" + admission.why() + ")");
        return find(requestId, 0);
    }

    /**
     * Replaces the body (a JSON object, or a reference to an immutable resource) and the schema version of a parked
     * event, checked by the rules every recorded event meets; the event stays parked until resumed (R6.6). Counted
     * like a re-send (R9.4): above the threshold the change is stored with the body it was asked against and waits
     * for a second person. Refused for an event a broker already took: that broker's consumers may have applied the
     * old body and would absorb the new one as a duplicate, so one event id would carry two contents.
     */
    @RolesAllowed(OperatorRoles.OPERATOR)
    public ReplayDecision requestFix(UUID eventId, String payload, URI payloadRef, int schemaVersion, String reason) {
        AdminRefusal.requireReason(reason);
        String actor = caller.getCallerPrincipal().getName();
        StoredEvent before = requireParked(event(eventId));
        ReplayRequests.ContentChange change = new ReplayRequests.ContentChange(eventId, before.payload(),
                before.payloadRef(), before.schemaVersion(), payload,
                payloadRef == null ? null : payloadRef.toString(), schemaVersion);
        check(before, change);
        UUID requestId = UUID.randomUUID();
        Admission admission = admit(actor, 1, settings());
        requests.insert(requestId, admission.now(), actor, reason, RequestKind.REPAIR_PREFIX + eventId,
                List.of(eventId));
        requests.insertContentChange(requestId, change);
        if (!admission.approvalRequired()) {
            return applyChange(requestId, change, actor, actor, reason);
        }
        audit.record(actor, RequestKind.REPAIR.audited("REQUESTED"), eventId, requestId, "reason: " + reason
                + "; body now " + ContentDiff.fingerprint(before.payload(), before.payloadRef()) + " schema "
                + before.schemaVersion() + "; asked " + ContentDiff.fingerprint(payload, change.payloadRef())
                + " schema " + schemaVersion + "; awaits a second approver (" + admission.why() + ")");
        return find(requestId, 0);
    }

    /** What one person may still do alone, decided under their requester lock (R9.4). */
    private record Admission(OffsetDateTime now, long recently, int asked, ReplaySettings settings) {

        boolean approvalRequired() {
            return recently + asked > settings.approvalThreshold();
        }

        String why() {
            return (recently + asked) + " events re-sent or changed without one within " + settings.approvalWindow()
                    + ", more than " + settings.approvalThreshold();
        }
    }

    private Admission admit(String actor, int asked, ReplaySettings settings) {
        // R9.4: a parallel request of the same person waits here until this one committed, then counts it.
        requests.lockRequester(actor);
        OffsetDateTime now = events.clock();
        return new Admission(now, requests.replayedWithoutApproval(actor, now.minus(settings.approvalWindow())), asked,
                settings);
    }

    private ReplayDecision resumeOne(UUID requestId, UUID eventId, String requester, String actor, String reason) {
        StoredEvent before = requireParked(event(eventId));
        if (!new Resend(events).resume(eventId)) {
            throw new AdminRefusal(AdminRefusal.Kind.CONFLICT, "event " + eventId + " left PARKED meanwhile");
        }
        audit.record(actor, "PARKED_RESUMED", eventId, requestId, "reason: " + reason + "; " + who(requester, actor)
                + "; " + before.describe() + " parked after " + before.lastErrorClass() + "; body "
                + ContentDiff.fingerprint(before.payload(), before.payloadRef()) + " schema " + before.schemaVersion());
        decide(requestId, "EXECUTED", actor);
        return find(requestId, 1);
    }

    /**
     * Applies a content change to the body it was asked against and nothing else: a change approved after another
     * one landed would silently undo it.
     */
    private ReplayDecision applyChange(UUID requestId, ReplayRequests.ContentChange change, String requester,
                                       String actor, String reason) {
        // Locked until this transaction ends: no other change lands between the comparison and the update.
        StoredEvent before = requireParked(events.findLocked(change.eventId()).orElseThrow(() -> new AdminRefusal(
                AdminRefusal.Kind.NOT_FOUND, "no outbox event " + change.eventId() + " (deleted by cleanup)")));
        if (!java.util.Objects.equals(before.payload(), change.payloadBefore())
                || !java.util.Objects.equals(before.payloadRef(), change.payloadRefBefore())
                || before.schemaVersion() != change.schemaVersionBefore()) {
            throw new AdminRefusal(AdminRefusal.Kind.CONFLICT, "event " + change.eventId() + " was changed since"
                    + " request " + requestId + " asked to change it: reject the request and ask again");
        }
        check(before, change);
        if (!new Resend(events).fix(change.eventId(), change.payload(), change.payloadRef(), change.schemaVersion())) {
            throw new AdminRefusal(AdminRefusal.Kind.CONFLICT, "event " + change.eventId() + " left PARKED meanwhile,"
                    + " or a broker took it meanwhile");
        }
        audit.record(actor, "PARKED_FIXED", change.eventId(), requestId, "reason: " + reason + "; "
                + who(requester, actor) + "; parked after " + before.lastErrorClass() + " at attempt "
                + before.attempts() + "; body before " + ContentDiff.fingerprint(before.payload(), before.payloadRef())
                + " schema " + before.schemaVersion() + "; body now " + ContentDiff.fingerprint(change.payload(),
                change.payloadRef()) + " schema " + change.schemaVersion());
        decide(requestId, "EXECUTED", actor);
        requests.forgetContentChange(requestId); // R6.3: bodies stay with the event only; the audit keeps fingerprints
        return find(requestId, 0); // a change sends nothing
    }

    /** R6.6: the rules every recorded event meets, and one content per event id once a broker took it. */
    private void check(StoredEvent before, ReplayRequests.ContentChange change) {
        if (before.reachedABroker()) {
            throw new AdminRefusal(AdminRefusal.Kind.CONFLICT, "event " + before.eventId() + " was already taken by "
                    + (before.acceptedBy().isEmpty() ? "its broker (it was delivered before a replay parked it)"
                    : String.join(" and ", before.acceptedBy()) + " (or may have been: an unknown outcome counts)")
                    + ": consumers there may have applied this body, and a changed body would give one event id"
                    + " two contents (R6.6). Resume it unchanged (those consumers absorb the re-send), or leave it"
                    + " parked and record a compensating event under a new id");
        }
        OutboxEvent fixed = new OutboxEvent(before.aggregateType(), before.aggregateId(), before.aggregateVersion(),
                before.eventType(), change.schemaVersion(), change.payload(),
                change.payloadRef() == null ? null : URI.create(change.payloadRef()));
        try {
            new EventValidation(outboxSettings.maxPayloadBytes()).check(fixed);
        } catch (InvalidEventException e) {
            throw new AdminRefusal(AdminRefusal.Kind.INVALID, e.getMessage());
        }
    }

    private static String who(String requester, String actor) {
        return requester.equals(actor) ? "requested by " + requester + " alone, within the approval threshold"
                : "requested by " + requester + ", approved by " + actor;
    }

    private static StoredEvent requireParked(StoredEvent event) {
        if (!"PARKED".equals(event.state())) {
            throw new AdminRefusal(AdminRefusal.Kind.CONFLICT, "event " + event.eventId() + " is " + event.state()
                    + ", not PARKED: only parked events are repaired or resumed");
        }
        return event;
    }

    private StoredEvent event(UUID eventId) {
        return events.find(eventId).orElseThrow(() -> new AdminRefusal(AdminRefusal.Kind.NOT_FOUND, "no outbox event "
                + eventId + " (never recorded, or deleted by cleanup after its retention)"));
    }

    /** A second person turns a waiting replay down; nothing is sent. */
    @RolesAllowed(OperatorRoles.APPROVER)
    public ReplayDecision reject(UUID requestId, String reason) {
        AdminRefusal.requireReason(reason);
        String approver = caller.getCallerPrincipal().getName();
        ReplayDecision waiting = awaiting(requestId, approver);
        decide(requestId, "REJECTED", approver);
        RequestKind kind = RequestKind.of(waiting.selection());
        if (kind == RequestKind.REPAIR) {
            requests.forgetContentChange(requestId);
        }
        audit.record(approver, kind.audited("REJECTED"), kind == RequestKind.REPLAY ? null
                : requests.events(requestId).get(0), requestId, "reason: " + reason + "; requested by "
                + waiting.requestedBy());
        return find(requestId, 0);
    }

    /**
     * One request; a content change's with what it changes (a diff of the body it was asked against and the body it
     * puts in its place), so the approver decides on what they see (R9.4). Reading it reads bodies: audited (R6.3).
     */
    @RolesAllowed({OperatorRoles.OPERATOR, OperatorRoles.APPROVER})
    public ReplayDecision show(UUID requestId) {
        ReplayDecision request = find(requestId, 0);
        Optional<ReplayRequests.ContentChange> change = RequestKind.of(request.selection()) == RequestKind.REPAIR
                ? requests.contentChange(requestId) : Optional.empty();
        if (change.isEmpty()) {
            return request; // not a content change, or one decided already: its bodies are gone, the audit has it
        }
        audit.record(caller.getCallerPrincipal().getName(), "PAYLOAD_READ", change.get().eventId(), requestId,
                "the content change of request " + requestId + " (" + request.state() + ")");
        return request.withChange(ContentDiff.of(change.get()));
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
                progress, null);
    }

    private static ReplaySettings settings() {
        Config config = ConfigProvider.getConfig();
        return ReplaySettings.read(name -> config.getOptionalValue(name, String.class));
    }
}
