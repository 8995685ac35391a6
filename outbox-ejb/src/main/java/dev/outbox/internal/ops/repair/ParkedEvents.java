package dev.outbox.internal.ops.repair;

import dev.outbox.internal.ops.AdminRefusal;
import dev.outbox.internal.ops.OperatorRoles;
import dev.outbox.internal.ops.audit.AuditTrail;
import dev.outbox.internal.ops.replay.ContentDiff;
import dev.outbox.internal.ops.replay.Replay;
import dev.outbox.internal.ops.replay.ReplayDecision;
import dev.outbox.internal.persistence.StoredEvent;
import dev.outbox.internal.persistence.StoredEvents;
import jakarta.annotation.Resource;
import jakarta.annotation.security.DeclareRoles;
import jakarta.annotation.security.RolesAllowed;
import jakarta.ejb.EJB;
import jakarta.ejb.SessionContext;
import jakarta.ejb.Stateless;
import jakarta.ejb.TransactionAttribute;
import jakarta.ejb.TransactionAttributeType;
import jakarta.inject.Inject;

import java.net.URI;
import java.util.List;
import java.util.UUID;

/**
 * The repair entry for parked events (R6.6): list them with why they parked, fix a body or schema version,
 * resume with the same event id. A repair never copies the event into a new one, so the failure evidence
 * (attempts, last error class, the audit trail) stays with the event id consumers will see. Each action is one
 * transaction with its audit entry. A fix and a resume are requests of the two-person rule ({@link Replay}): one
 * person's re-sends and content changes count together against the approval threshold (R9.4).
 */
@Stateless
@DeclareRoles({OperatorRoles.OPERATOR, OperatorRoles.APPROVER})
public class ParkedEvents {

    /** Who acts: the container's caller, never a name passed in. */
    @Resource
    SessionContext caller;

    @Inject
    StoredEvents events;

    @EJB
    Replay replay;

    @Inject
    AuditTrail audit;

    /** Parked events, oldest first, without bodies. */
    @TransactionAttribute(TransactionAttributeType.SUPPORTS)
    @RolesAllowed({OperatorRoles.OPERATOR, OperatorRoles.APPROVER})
    public List<StoredEvent> list(int limit) {
        return events.parked(limit);
    }

    /** One event, body included, in whatever state it is; who read a body is audited (R6.3). */
    @RolesAllowed(OperatorRoles.OPERATOR)
    public StoredEvent show(UUID eventId) {
        StoredEvent event = find(eventId);
        audit.record(actor(), "PAYLOAD_READ", eventId, null, event.describe() + " in state " + event.state()
                + "; body " + ContentDiff.fingerprint(event.payload(), event.payloadRef()));
        return event;
    }

    /**
     * What became of a repair or resume: done now ({@code event} as it is after it), or waiting for a second person
     * ({@code request} AWAITING_APPROVAL, R9.4).
     */
    public record Outcome(ReplayDecision request, StoredEvent event) {

        public boolean awaitsApproval() {
            return request.state().equals("AWAITING_APPROVAL");
        }
    }

    /**
     * Replaces the body (a JSON object, or a reference to an immutable resource) and the schema version of a parked
     * event; it stays parked until resumed. Under the two-person rule and refused once a broker took the event
     * ({@link Replay#requestFix}).
     */
    @RolesAllowed(OperatorRoles.OPERATOR)
    public Outcome fix(UUID eventId, String payload, URI payloadRef, int schemaVersion, String reason) {
        return outcome(eventId, replay.requestFix(eventId, payload, payloadRef, schemaVersion, reason));
    }

    /** Puts a parked event back in line with its event id, due now (R6.6), under the two-person rule (R9.4). */
    @RolesAllowed(OperatorRoles.OPERATOR)
    public Outcome resume(UUID eventId, String reason) {
        return outcome(eventId, replay.requestResume(eventId, reason));
    }

    private Outcome outcome(UUID eventId, ReplayDecision request) {
        return new Outcome(request, find(eventId));
    }

    private StoredEvent find(UUID eventId) {
        return events.find(eventId).orElseThrow(() -> new AdminRefusal(AdminRefusal.Kind.NOT_FOUND, "no outbox event "
                + eventId + " (never recorded, or deleted by cleanup after its retention)"));
    }

    private String actor() {
        return caller.getCallerPrincipal().getName();
    }
}
