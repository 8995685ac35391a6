package dev.outbox.example.orders.control;

import dev.outbox.example.orders.boundary.OrderConflictException;
import dev.outbox.example.orders.boundary.OrderNotFoundException;
import dev.outbox.example.orders.entity.Order;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;

/**
 * Moves an order to its next version with a conditional update, in the caller's transaction: the business step
 * of {@code Orders.note}, and the whole of the benchmark's baseline command, so both run exactly the same SQL.
 */
@ApplicationScoped
public class OrderVersions {

    @PersistenceContext(unitName = "orders")
    EntityManager entityManager;

    /**
     * @return the order's new version
     * @throws OrderNotFoundException when there is no such order
     * @throws OrderConflictException when somebody changed the order between the read and the update
     */
    public long advance(String orderId) {
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
