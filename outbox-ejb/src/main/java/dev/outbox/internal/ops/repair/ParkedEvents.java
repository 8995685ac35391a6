package dev.outbox.internal.ops.repair;

import dev.outbox.InvalidEventException;
import dev.outbox.OutboxEvent;
import dev.outbox.internal.config.OutboxSettings;
import dev.outbox.internal.ops.AdminRefusal;
import dev.outbox.internal.ops.OperatorRoles;
import dev.outbox.internal.ops.audit.AuditTrail;
import dev.outbox.internal.persistence.StoredEvent;
import dev.outbox.internal.persistence.StoredEvents;
import dev.outbox.internal.protocol.Resend;
import dev.outbox.internal.record.EventValidation;
import jakarta.annotation.Resource;
import jakarta.annotation.security.DeclareRoles;
import jakarta.annotation.security.RolesAllowed;
import jakarta.ejb.SessionContext;
import jakarta.ejb.Stateless;
import jakarta.ejb.TransactionAttribute;
import jakarta.ejb.TransactionAttributeType;
import jakarta.inject.Inject;

import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import java.util.UUID;

/**
 * The repair entry for parked events (R6.6): list them with why they parked, fix a body or schema version,
 * resume with the same event id. A repair never copies the event into a new one, so the failure evidence
 * (attempts, last error class, the audit trail) stays with the event id consumers will see. Each action is one
 * transaction with its audit entry.
 */
@Stateless
@DeclareRoles({OperatorRoles.OPERATOR, OperatorRoles.APPROVER})
public class ParkedEvents {

    /** Who acts: the container's caller, never a name passed in. */
    @Resource
    SessionContext caller;

    @Inject
    StoredEvents events;

    @Inject
    OutboxSettings settings;

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
                + "; body " + fingerprint(event.payload(), event.payloadRef()));
        return event;
    }

    /**
     * Replaces the body (a JSON object, or a reference to an immutable resource) and the schema version of a
     * parked event, checked by the rules every recorded event meets. The event stays parked until resumed. Refused
     * for an event a broker already took (one transport of its route accepted it, or it was delivered once before a
     * replay parked it): that broker's consumers may have applied the old body and would absorb the new one as a
     * duplicate, so one event id would carry two contents (R6.6).
     */
    @RolesAllowed(OperatorRoles.OPERATOR)
    public StoredEvent fix(UUID eventId, String payload, URI payloadRef, int schemaVersion,
                           String reason) {
        AdminRefusal.requireReason(reason);
        StoredEvent before = requireParked(find(eventId));
        if (before.reachedABroker()) {
            throw new AdminRefusal(AdminRefusal.Kind.CONFLICT, "event " + eventId + " was already taken by "
                    + (before.acceptedBy().isEmpty() ? "its broker (it was delivered before a replay parked it)"
                    : String.join(" and ", before.acceptedBy()) + " (or may have been: an unknown outcome counts)")
                    + ": consumers there may have applied this body, and a changed body would give one event id"
                    + " two contents (R6.6). Resume it unchanged (those consumers absorb the re-send), or leave it"
                    + " parked and record a compensating event under a new id");
        }
        OutboxEvent fixed = new OutboxEvent(before.aggregateType(), before.aggregateId(),
                before.aggregateVersion(), before.eventType(), schemaVersion, payload, payloadRef);
        try {
            new EventValidation(settings.maxPayloadBytes()).check(fixed);
        } catch (InvalidEventException e) {
            throw new AdminRefusal(AdminRefusal.Kind.INVALID, e.getMessage());
        }
        String reference = payloadRef == null ? null : payloadRef.toString();
        if (!new Resend(events).fix(eventId, payload, reference, schemaVersion)) {
            throw new AdminRefusal(AdminRefusal.Kind.CONFLICT, "event " + eventId + " left PARKED meanwhile, or a"
                    + " broker took it meanwhile");
        }
        audit.record(actor(), "PARKED_FIXED", eventId, null, "reason: " + reason + "; parked after "
                + before.lastErrorClass() + " at attempt " + before.attempts() + "; body before "
                + fingerprint(before.payload(), before.payloadRef()) + " schema " + before.schemaVersion()
                + "; body now " + fingerprint(payload, reference) + " schema " + schemaVersion);
        return find(eventId);
    }

    /** Puts a parked event back in line with its event id, due now (R6.6). */
    @RolesAllowed(OperatorRoles.OPERATOR)
    public StoredEvent resume(UUID eventId, String reason) {
        AdminRefusal.requireReason(reason);
        StoredEvent before = requireParked(find(eventId));
        if (!new Resend(events).resume(eventId)) {
            throw new AdminRefusal(AdminRefusal.Kind.CONFLICT, "event " + eventId + " left PARKED meanwhile");
        }
        audit.record(actor(), "PARKED_RESUMED", eventId, null, "reason: " + reason + "; " + before.describe()
                + " parked after " + before.lastErrorClass() + "; body " + fingerprint(before.payload(),
                before.payloadRef()) + " schema " + before.schemaVersion());
        return find(eventId);
    }

    private static StoredEvent requireParked(StoredEvent event) {
        if (!"PARKED".equals(event.state())) {
            throw new AdminRefusal(AdminRefusal.Kind.CONFLICT, "event " + event.eventId() + " is " + event.state()
                    + ", not PARKED: only parked events are repaired or resumed");
        }
        return event;
    }

    private StoredEvent find(UUID eventId) {
        return events.find(eventId).orElseThrow(() -> new AdminRefusal(AdminRefusal.Kind.NOT_FOUND, "no outbox event "
                + eventId + " (never recorded, or deleted by cleanup after its retention)"));
    }

    /** Evidence of a body without the body (R6.3): its size and SHA-256, or the reference. */
    static String fingerprint(String payload, String payloadRef) {
        if (payload == null) {
            return "reference " + payloadRef;
        }
        byte[] bytes = payload.getBytes(StandardCharsets.UTF_8);
        try {
            return bytes.length + " bytes sha256:" + HexFormat.of().formatHex(
                    MessageDigest.getInstance("SHA-256").digest(bytes));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    private String actor() {
        return caller.getCallerPrincipal().getName();
    }
}
