package dev.outbox.example.loyalty.entity;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;

import java.util.UUID;

/** Loyalty points for one paid order, awarded once from its OrderPaid event. */
@Entity
@Table(name = "loyalty_points")
public class LoyaltyPoints {

    @Id
    @Column(name = "order_id", length = 36)
    private String orderId;

    @Column(name = "event_id", nullable = false)
    private UUID eventId;

    @Column(name = "points", nullable = false)
    private long points;

    protected LoyaltyPoints() {
        // for JPA
    }

    public LoyaltyPoints(String orderId, UUID eventId, long points) {
        this.orderId = orderId;
        this.eventId = eventId;
        this.points = points;
    }
}
