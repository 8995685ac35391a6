package dev.outbox.ops;

import dev.outbox.internal.store.DeliveryState;
import jakarta.ejb.Stateless;
import jakarta.ejb.TransactionAttribute;
import jakarta.ejb.TransactionAttributeType;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;

import java.util.EnumMap;
import java.util.List;
import java.util.Map;

/** Counts of the outbox and the inbox, for the stats endpoint and for operators. */
@Stateless
@TransactionAttribute(TransactionAttributeType.SUPPORTS)
public class OutboxStatistics {

    @PersistenceContext(unitName = "outbox")
    EntityManager entityManager;

    public DeliveryCounts counts() {
        Map<DeliveryState, Long> byState = new EnumMap<>(DeliveryState.class);
        List<Object[]> rows = entityManager.createQuery(
                "SELECT e.state, COUNT(e) FROM OutboxEventRow e GROUP BY e.state", Object[].class).getResultList();
        for (Object[] row : rows) {
            byState.put((DeliveryState) row[0], ((Number) row[1]).longValue());
        }
        long parked = byState.getOrDefault(DeliveryState.PARKED, 0L);
        // Only worth asking when something is parked; served by the (aggregate, version) unique index.
        long blocked = parked == 0 ? 0 : entityManager.createQuery("SELECT COUNT(e) FROM OutboxEventRow e"
                + " WHERE e.state = :pending AND EXISTS (SELECT p FROM OutboxEventRow p"
                + " WHERE p.aggregateType = e.aggregateType AND p.aggregateId = e.aggregateId"
                + " AND p.aggregateVersion < e.aggregateVersion AND p.state = :parked)", Long.class)
                .setParameter("pending", DeliveryState.PENDING).setParameter("parked", DeliveryState.PARKED)
                .getSingleResult();
        Number duplicates = entityManager.createQuery(
                "SELECT COALESCE(SUM(p.duplicates), 0) FROM ProcessedEventRow p", Number.class).getSingleResult();
        return new DeliveryCounts(byState.getOrDefault(DeliveryState.PENDING, 0L),
                byState.getOrDefault(DeliveryState.DELIVERED, 0L),
                parked, blocked, duplicates.longValue());
    }
}
