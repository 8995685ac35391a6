package dev.outbox.ops;

import dev.outbox.internal.persistence.RowCounts;
import jakarta.ejb.Stateless;
import jakarta.ejb.TransactionAttribute;
import jakarta.ejb.TransactionAttributeType;
import jakarta.inject.Inject;

/** Counts of the outbox and the inbox, for the stats endpoint and for operators. */
@Stateless
@TransactionAttribute(TransactionAttributeType.SUPPORTS)
public class OutboxStatistics {

    @Inject
    RowCounts rows;

    public DeliveryCounts counts() {
        RowCounts.Counts counts = rows.counts();
        return new DeliveryCounts(counts.pending(), counts.delivered(), counts.parked(), counts.blocked(),
                counts.duplicatesAbsorbed());
    }
}
