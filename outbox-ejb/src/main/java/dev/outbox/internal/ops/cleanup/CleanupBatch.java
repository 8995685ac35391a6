package dev.outbox.internal.ops.cleanup;

import dev.outbox.internal.persistence.Expired;
import dev.outbox.internal.persistence.OutboxDataSource;
import jakarta.ejb.Stateless;
import jakarta.ejb.TransactionAttribute;
import jakarta.ejb.TransactionAttributeType;
import jakarta.inject.Inject;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.OffsetDateTime;

/** One small delete, in a short transaction of its own, so cleanup never holds long locks (R8.1). */
@Stateless
public class CleanupBatch {

    @Inject
    OutboxDataSource database;

    @TransactionAttribute(TransactionAttributeType.REQUIRES_NEW)
    public int delete(Expired what, OffsetDateTime cutOff, int limit) {
        try (Connection connection = database.connect()) {
            return what.deleteBatch(connection, cutOff, limit);
        } catch (SQLException e) {
            throw new IllegalStateException("outbox cleanup batch of " + what + " failed", e);
        }
    }
}
