package dev.outbox.example.orders.entity;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.EnumType;
import jakarta.persistence.Enumerated;
import jakarta.persistence.Id;
import jakarta.persistence.Table;

import java.math.BigDecimal;
import java.time.OffsetDateTime;

/**
 * An order, the example's aggregate. {@code version} is the aggregate version its events carry: 1 when
 * placed, 2 when paid. It changes only through the conditional update in {@code Orders.pay} (R3.1), not
 * through JPA's optimistic locking, so the version check and the event version are one explicit number.
 */
@Entity(name = "PurchaseOrder")
@Table(name = "orders")
public class Order {

    public static final String AGGREGATE_TYPE = "Order";

    @Id
    @Column(name = "order_id", length = 36)
    private String id;

    @Column(name = "customer_id", nullable = false, length = 100)
    private String customerId;

    @Column(name = "amount", nullable = false, precision = 12, scale = 2)
    private BigDecimal amount;

    @Enumerated(EnumType.STRING)
    @Column(name = "status", nullable = false, length = 16)
    private OrderStatus status;

    @Column(name = "version", nullable = false)
    private long version;

    @Column(name = "placed_at", nullable = false)
    private OffsetDateTime placedAt;

    @Column(name = "paid_at")
    private OffsetDateTime paidAt;

    protected Order() {
        // for JPA
    }

    public static Order place(String id, String customerId, BigDecimal amount, OffsetDateTime now) {
        Order order = new Order();
        order.id = id;
        order.customerId = customerId;
        order.amount = amount;
        order.status = OrderStatus.PLACED;
        order.version = 1;
        order.placedAt = now;
        return order;
    }

    /** Fault drill only: breaks the table's {@code amount > 0} check, so the commit fails in the database. */
    public void breakAmountCheck() {
        amount = BigDecimal.ONE.negate();
    }

    public String id() {
        return id;
    }

    public String customerId() {
        return customerId;
    }

    public BigDecimal amount() {
        return amount;
    }

    public OrderStatus status() {
        return status;
    }

    public long version() {
        return version;
    }

    public OffsetDateTime placedAt() {
        return placedAt;
    }
}
