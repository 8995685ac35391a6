package dev.outbox.internal.ops.audit;

import dev.outbox.internal.persistence.AuditEntry;
import dev.outbox.internal.persistence.AuditRows;
import dev.outbox.internal.publish.PublisherMessages;
import jakarta.ejb.Stateless;
import jakarta.ejb.TransactionAttribute;
import jakarta.ejb.TransactionAttributeType;
import jakarta.inject.Inject;

import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.List;
import java.util.UUID;
import java.util.logging.Logger;

/**
 * Who did what, when, to which event or replay request (R6.6, R9.2). An entry is written in the transaction of
 * the action it describes: an action that rolls back leaves no entry, and no action commits without one.
 * Details hold ids, counts, error classes and hashes, never a payload (R6.3).
 */
@Stateless
public class AuditTrail {

    private static final Logger LOG = Logger.getLogger(AuditTrail.class.getName());

    @Inject
    AuditRows rows;

    @TransactionAttribute(TransactionAttributeType.MANDATORY)
    public void record(String actor, String action, UUID eventId, UUID requestId, String detail) {
        rows.insert(List.of(new AuditEntry(UUID.randomUUID(), OffsetDateTime.now(ZoneOffset.UTC), actor, action,
                eventId, requestId, detail)));
        PublisherMessages.ADMIN_ACTION.log(LOG,
                () -> "outbox admin: " + actor + " " + action + (eventId == null ? "" : " event " + eventId)
                + (requestId == null ? "" : " request " + requestId) + ": " + detail);
    }

    /**
     * The entries of one action's events in one batch (a replay's), not logged one by one: the action's own
     * {@link #record} entry is the log line that sums them up.
     */
    @TransactionAttribute(TransactionAttributeType.MANDATORY)
    public void recordEach(List<AuditEntry> entries) {
        rows.insert(entries);
    }

    /** The newest entries first: all, of one event, of one actor, or of both (a null narrows nothing). */
    @TransactionAttribute(TransactionAttributeType.SUPPORTS)
    public List<AuditEntry> recent(UUID eventId, String actor, int limit) {
        return rows.recent(eventId, actor, limit);
    }
}
