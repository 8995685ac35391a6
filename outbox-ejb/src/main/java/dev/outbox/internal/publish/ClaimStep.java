package dev.outbox.internal.publish;

import dev.outbox.internal.persistence.ClaimRequest;
import dev.outbox.internal.persistence.OutboxDataSource;
import dev.outbox.spi.OutboundEvent;
import jakarta.ejb.Stateless;
import jakarta.ejb.TransactionAttribute;
import jakarta.ejb.TransactionAttributeType;
import jakarta.inject.Inject;

import java.util.List;

/** The claim, in a short transaction of its own that commits before any send (R4.1). */
@Stateless
public class ClaimStep {

    @Inject
    OutboxDataSource database;

    @TransactionAttribute(TransactionAttributeType.REQUIRES_NEW)
    public List<OutboundEvent> claim(ClaimRequest request) {
        List<OutboundEvent> claimed = database.claim(request);
        if (!claimed.isEmpty()) {
            Failpoint.BEFORE_CLAIM_COMMIT.reach();
        }
        return claimed;
    }
}
