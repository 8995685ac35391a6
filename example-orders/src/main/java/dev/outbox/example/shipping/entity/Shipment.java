package dev.outbox.example.shipping.entity;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;

import java.time.OffsetDateTime;
import java.util.UUID;

/**
 * A shipment, created by the shipping consumer once per paid order ({@code order_id} is unique), from the
 * OrderPaid event {@code eventId}.
 */
@Entity
@Table(name = "shipment")
public class Shipment {

    @Id
    @Column(name = "shipment_id", length = 36)
    private String id;

    @Column(name = "order_id", nullable = false, length = 36)
    private String orderId;

    @Column(name = "event_id", nullable = false)
    private UUID eventId;

    @Column(name = "created_at", nullable = false)
    private OffsetDateTime createdAt;

    protected Shipment() {
        // for JPA
    }

    public Shipment(String id, String orderId, UUID eventId, OffsetDateTime createdAt) {
        this.id = id;
        this.orderId = orderId;
        this.eventId = eventId;
        this.createdAt = createdAt;
    }

    public String orderId() {
        return orderId;
    }

    public UUID eventId() {
        return eventId;
    }
}
