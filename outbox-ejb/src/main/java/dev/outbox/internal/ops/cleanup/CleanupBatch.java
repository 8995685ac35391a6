package dev.outbox.internal.ops.cleanup;

import dev.outbox.internal.persistence.Expired;
import dev.outbox.internal.persistence.OutboxDataSource;
import jakarta.ejb.Stateless;
import jakarta.ejb.TransactionAttribute;
import jakarta.ejb.TransactionAttributeType;
import jakarta.inject.Inject;

import java.time.OffsetDateTime;

/** One small delete, in a short transaction of its own, so cleanup never holds long locks (R8.1). */
@Stateless
public class CleanupBatch {

    @Inject
    OutboxDataSource database;

    @TransactionAttribute(TransactionAttributeType.REQUIRES_NEW)
    public int delete(Expired what, OffsetDateTime cutOff, int limit) {
        return what.deleteBatch(database, cutOff, limit);
    }
}
