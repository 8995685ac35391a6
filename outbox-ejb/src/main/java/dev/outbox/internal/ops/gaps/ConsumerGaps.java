package dev.outbox.internal.ops.gaps;

import dev.outbox.internal.config.OutboxSettings;
import dev.outbox.internal.inbox.Resequencer;
import dev.outbox.internal.ops.AdminRefusal;
import dev.outbox.internal.ops.OperatorRoles;
import dev.outbox.internal.ops.audit.AuditTrail;
import dev.outbox.internal.persistence.InboxStore;
import dev.outbox.internal.persistence.OutboxDataSource;
import jakarta.annotation.Resource;
import jakarta.annotation.security.DeclareRoles;
import jakarta.annotation.security.RolesAllowed;
import jakarta.ejb.SessionContext;
import jakarta.ejb.Stateless;
import jakarta.ejb.TransactionAttribute;
import jakarta.ejb.TransactionAttributeType;
import jakarta.inject.Inject;

import java.util.List;

/**
 * Consumers' gaps and forks for operators (R5.7, R7.7), where the consumers' inboxes share this database: which
 * aggregates wait for which missing versions, which events were parked as forks, and the one decision that ends a
 * gap without the missing version, an audited skip. The waiting events after a skip are applied by their consumer
 * within seconds ({@code InboxAttempt}'s release sweep, at its next delivery).
 */
@Stateless
@DeclareRoles({OperatorRoles.OPERATOR, OperatorRoles.APPROVER})
public class ConsumerGaps {

    @Resource
    SessionContext caller;

    @Inject
    OutboxDataSource database;

    @Inject
    OutboxSettings settings;

    @Inject
    AuditTrail audit;

    @TransactionAttribute(TransactionAttributeType.SUPPORTS)
    @RolesAllowed({OperatorRoles.OPERATOR, OperatorRoles.APPROVER})
    public List<InboxStore.Gap> gaps(int limit) {
        return database.onInbox(inbox -> inbox.gaps(limit), () -> "cannot list the consumers' gaps");
    }

    @TransactionAttribute(TransactionAttributeType.SUPPORTS)
    @RolesAllowed({OperatorRoles.OPERATOR, OperatorRoles.APPROVER})
    public List<InboxStore.Conflict> conflicts(int limit) {
        return database.onInbox(inbox -> inbox.conflicts(limit), () -> "cannot list the consumers' conflicts");
    }

    /**
     * Stops {@code consumer} waiting for the versions of the aggregate up to {@code through} (R5.7), with the reason
     * in the audit trail; one transaction with its audit entry.
     *
     * @return the first version skipped
     */
    @RolesAllowed(OperatorRoles.OPERATOR)
    public long skip(String consumer, String aggregateType, String aggregateId, long through, String reason) {
        AdminRefusal.requireReason(reason);
        if (consumer == null || aggregateType == null || aggregateId == null) {
            throw new AdminRefusal(AdminRefusal.Kind.INVALID, "a skip names consumer, aggregateType and aggregateId");
        }
        String actor = caller.getCallerPrincipal().getName();
        Resequencer.Skip skip;
        try {
            skip = database.onInbox(inbox -> new Resequencer(inbox, settings.inboxRetention())
                    .skip(consumer, aggregateType, aggregateId, through, actor, reason), () -> "cannot skip the gap of "
                    + consumer + " in " + aggregateType + "/" + aggregateId);
        } catch (IllegalArgumentException nothingMissing) {
            throw new AdminRefusal(AdminRefusal.Kind.CONFLICT, nothingMissing.getMessage());
        }
        audit.record(actor, "GAP_SKIPPED", null, null, "consumer " + consumer + " skips " + aggregateType + "/"
                + aggregateId + " versions " + skip.from() + " to " + through + (skip.dropped().isEmpty() ? ""
                : ", dropping the waiting events that kept failing: " + skip.dropped()) + "; reason: " + reason);
        return skip.from();
    }
}
