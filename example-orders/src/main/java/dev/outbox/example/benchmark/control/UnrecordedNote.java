package dev.outbox.example.benchmark.control;

import dev.outbox.example.orders.boundary.OrderConflictException;
import dev.outbox.example.orders.boundary.OrderNotFoundException;
import dev.outbox.example.orders.entity.Order;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import jakarta.transaction.Transactional;

/**
 * The benchmark's baseline (issue 8, B1): {@code Orders.note} exactly, the same read and conditional update in
 * a transaction, but without recording its event. The difference between the two is what the outbox costs a
 * business transaction.
 */
@ApplicationScoped
public class UnrecordedNote {

    @PersistenceContext(unitName = "orders")
    EntityManager entityManager;

    @Transactional
    public long note(String orderId) {
        Order order = entityManager.find(Order.class, orderId);
        if (order == null) {
            throw new OrderNotFoundException(orderId);
        }
        long expected = order.version();
        int changed = entityManager.createQuery("UPDATE PurchaseOrder o SET o.version = o.version + 1 "
                        + "WHERE o.id = :id AND o.version = :expected")
                .setParameter("id", orderId)
                .setParameter("expected", expected)
                .executeUpdate();
        if (changed != 1) {
            throw new OrderConflictException("order " + orderId + " is no longer at version " + expected);
        }
        return expected + 1;
    }
}
