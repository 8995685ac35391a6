package dev.outbox.example.shipping.entity;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;

import java.time.OffsetDateTime;

/**
 * A shipment, created by the shipping consumer once per paid order ({@code order_id} is unique). The
 * consumer behind the inbox arrives with the publisher; until then the table only feeds the stats.
 */
@Entity
@Table(name = "shipment")
public class Shipment {

    @Id
    @Column(name = "shipment_id", length = 36)
    private String id;

    @Column(name = "order_id", nullable = false, length = 36)
    private String orderId;

    @Column(name = "created_at", nullable = false)
    private OffsetDateTime createdAt;

    protected Shipment() {
        // for JPA
    }

    public Shipment(String id, String orderId, OffsetDateTime createdAt) {
        this.id = id;
        this.orderId = orderId;
        this.createdAt = createdAt;
    }

    public String orderId() {
        return orderId;
    }
}
