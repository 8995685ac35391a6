package dev.outbox.example.invoicing.entity;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;

import java.math.BigDecimal;

/** An order's invoice in the invoicing service: opened by OrderPlaced, settled by OrderPaid. */
@Entity
@Table(name = "invoice")
public class Invoice {

    public static final String OPEN = "OPEN";
    public static final String SETTLED = "SETTLED";

    @Id
    @Column(name = "order_id", length = 36)
    private String orderId;

    @Column(name = "amount", nullable = false, precision = 12, scale = 2)
    private BigDecimal amount;

    @Column(name = "status", nullable = false, length = 16)
    private String status;

    @Column(name = "last_version", nullable = false)
    private long lastVersion;

    protected Invoice() {
        // for JPA
    }

    public Invoice(String orderId, BigDecimal amount, long version) {
        this.orderId = orderId;
        this.amount = amount;
        this.status = OPEN;
        this.lastVersion = version;
    }

    public void settle(long version) {
        status = SETTLED;
        lastVersion = version;
    }

    public void noted(long version) {
        lastVersion = version;
    }

    public long lastVersion() {
        return lastVersion;
    }
}
