package dev.outbox.example.orders.boundary;

import dev.outbox.OutboxRecorder;
import dev.outbox.Outboxed;
import dev.outbox.example.orders.control.FaultDrill;
import dev.outbox.example.orders.control.OrderEvents;
import dev.outbox.example.orders.control.OrderVersions;
import dev.outbox.example.orders.entity.Order;
import dev.outbox.example.orders.entity.OrderStatus;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;

import java.math.BigDecimal;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.UUID;
import java.util.logging.Logger;

/**
 * The order commands. Each validates, changes the aggregate with a conditional update, then records its event
 * in the same transaction (R3.1): the order and its event commit together or not at all (R1.2).
 */
@ApplicationScoped
public class Orders {

    private static final Logger LOG = Logger.getLogger(Orders.class.getName());

    @PersistenceContext(unitName = "orders")
    EntityManager entityManager;

    @Inject
    OutboxRecorder outbox;

    @Inject
    OrderVersions versions;

    public record Placed(String orderId, long version) {
    }

    @Outboxed
    public Placed place(String customerId, BigDecimal amount, String note, FaultDrill.Point drill) {
        Order order = Order.place(UUID.randomUUID().toString(), customerId, amount, now());
        entityManager.persist(order);
        entityManager.flush();
        outbox.record(OrderEvents.placed(order, note));
        if (drill == FaultDrill.Point.BUSINESS_FAILS_AFTER_OUTBOX) {
            order.breakAmountCheck();
        }
        LOG.fine(() -> "order " + order.id() + " placed at version 1");
        return new Placed(order.id(), order.version());
    }

    /**
     * Pays an order: version {@code expectedVersion} (or the current one when absent) becomes the next one,
     * only if nobody changed the order in between.
     */
    @Outboxed
    public Placed pay(String orderId, Long expectedVersion, FaultDrill.Point drill) {
        Order order = entityManager.find(Order.class, orderId);
        if (order == null) {
            throw new OrderNotFoundException(orderId);
        }
        long expected = expectedVersion != null ? expectedVersion : order.version();
        if (order.status() != OrderStatus.PLACED) {
            throw new OrderConflictException("order " + orderId + " is already " + order.status()
                    + " at version " + order.version());
        }
        // R3.1: the conditional update decides; a stale version changes no row and nothing commits.
        int changed = entityManager.createQuery("UPDATE PurchaseOrder o SET o.status = :paid, "
                        + "o.version = o.version + 1, o.paidAt = :now "
                        + "WHERE o.id = :id AND o.version = :expected AND o.status = :placed")
                .setParameter("paid", OrderStatus.PAID)
                .setParameter("placed", OrderStatus.PLACED)
                .setParameter("now", now())
                .setParameter("id", orderId)
                .setParameter("expected", expected)
                .executeUpdate();
        if (changed != 1) {
            throw new OrderConflictException("order " + orderId + " is no longer at version " + expected);
        }
        long paidVersion = drill == FaultDrill.Point.REUSE_EVENT_VERSION ? expected : expected + 1;
        outbox.record(OrderEvents.paid(orderId, order.customerId(), order.amount(), paidVersion));
        return new Placed(orderId, expected + 1);
    }

    /**
     * Adds a note to an order in any state: one more version of the aggregate and one OrderNoted event, only if
     * nobody changed the order in between (for many versions of one aggregate, as the ordering tests need).
     */
    @Outboxed
    public Placed note(String orderId, String note) {
        long next = versions.advance(orderId);
        outbox.record(OrderEvents.noted(orderId, note, next));
        return new Placed(orderId, next);
    }

    private static OffsetDateTime now() {
        return OffsetDateTime.now(ZoneOffset.UTC);
    }
}
