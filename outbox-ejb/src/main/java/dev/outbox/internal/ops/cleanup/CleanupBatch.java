package dev.outbox.internal.ops.cleanup;

import dev.outbox.internal.persistence.InboxMarks;
import dev.outbox.internal.persistence.OutboxDataSource;
import dev.outbox.internal.persistence.OutboxRows;
import dev.outbox.internal.persistence.SideEffectRows;
import jakarta.ejb.Stateless;
import jakarta.ejb.TransactionAttribute;
import jakarta.ejb.TransactionAttributeType;
import jakarta.inject.Inject;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.OffsetDateTime;

/** One small delete, in a short transaction of its own, so cleanup never holds long locks (R8.1). */
@Stateless
public class CleanupBatch {

    @Inject
    OutboxDataSource database;

    @TransactionAttribute(TransactionAttributeType.REQUIRES_NEW)
    public int deleteDelivered(OffsetDateTime deliveredBefore, int limit) {
        return delete(OutboxRows.DELETE_DELIVERED_BATCH, deliveredBefore, limit);
    }

    @TransactionAttribute(TransactionAttributeType.REQUIRES_NEW)
    public int deleteExpiredInboxMarks(OffsetDateTime now, int limit) {
        return delete(InboxMarks.DELETE_PROCESSED_BATCH, now, limit);
    }

    @TransactionAttribute(TransactionAttributeType.REQUIRES_NEW)
    public int deleteExpiredHolds(OffsetDateTime heldBefore, int limit) {
        return delete(InboxMarks.DELETE_EXPIRED_HOLDS_BATCH, heldBefore, limit);
    }

    @TransactionAttribute(TransactionAttributeType.REQUIRES_NEW)
    public int deleteSettledSideEffects(OffsetDateTime settledBefore, int limit) {
        return delete(SideEffectRows.DELETE_SETTLED_SIDE_EFFECTS_BATCH, settledBefore, limit);
    }

    private int delete(String sql, OffsetDateTime cutOff, int limit) {
        try (Connection connection = database.connect(); PreparedStatement delete = connection.prepareStatement(sql)) {
            delete.setObject(1, cutOff);
            delete.setObject(2, cutOff);
            delete.setInt(3, limit);
            return delete.executeUpdate();
        } catch (SQLException e) {
            throw new IllegalStateException("outbox cleanup batch failed", e);
        }
    }
}
