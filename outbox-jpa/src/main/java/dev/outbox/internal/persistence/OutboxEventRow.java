package dev.outbox.internal.persistence;

import dev.outbox.EventId;
import dev.outbox.OutboxEvent;
import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.EnumType;
import jakarta.persistence.Enumerated;
import jakarta.persistence.Id;
import jakarta.persistence.Table;

import java.net.URI;
import java.time.OffsetDateTime;
import java.util.UUID;

/**
 * One row of {@code outbox_event}: an event and its delivery state. The schema is owned by the versioned
 * scripts under {@code META-INF/outbox/sql/}; this mapping follows them and never generates DDL.
 *
 * <p>The write side only inserts. The publisher's columns (claimer, lease, attempts, broker position) are
 * changed by the dialect's SQL with conditional updates, never by merging this entity (R4.2).
 */
@Entity
@Table(name = "outbox_event")
public class OutboxEventRow {

    @Id
    @Column(name = "event_id", nullable = false, updatable = false)
    private UUID eventId;

    @Column(name = "aggregate_type", nullable = false, updatable = false, length = 100)
    private String aggregateType;

    @Column(name = "aggregate_id", nullable = false, updatable = false, length = 200)
    private String aggregateId;

    @Column(name = "aggregate_version", nullable = false, updatable = false)
    private long aggregateVersion;

    @Column(name = "event_type", nullable = false, updatable = false, length = 100)
    private String eventType;

    @Column(name = "schema_version", nullable = false)
    private int schemaVersion;

    @Column(name = "payload")
    private String payload;

    @Column(name = "payload_ref", length = 1000)
    private String payloadReference;

    @Column(name = "created_at", nullable = false, updatable = false)
    private OffsetDateTime createdAt;

    @Enumerated(EnumType.STRING)
    @Column(name = "state", nullable = false, length = 16)
    private DeliveryState state;

    @Column(name = "attempts", nullable = false)
    private int attempts;

    /**
     * Never written by JPA: a new row is due at the database's time (schema V6's default), the clock every claim
     * compares with, not at the recording server's, which may differ (R4.3). Later values are set by SQL on that clock.
     */
    @Column(name = "next_attempt_at", insertable = false, updatable = false)
    private OffsetDateTime nextAttemptAt;

    @Column(name = "last_error_class", length = 200)
    private String lastErrorClass;

    @Column(name = "claimed_by", length = 100)
    private String claimedBy;

    @Column(name = "lease_version", nullable = false)
    private long leaseVersion;

    @Column(name = "lease_until")
    private OffsetDateTime leaseUntil;

    @Column(name = "delivered_at")
    private OffsetDateTime deliveredAt;

    @Column(name = "broker_message_id", length = 200)
    private String brokerMessageId;

    @Column(name = "broker_partition")
    private Integer brokerPartition;

    @Column(name = "broker_offset")
    private Long brokerOffset;

    /** R8.3: PUBLISH, or SHADOW while the application's old path still sends this event type. */
    @Column(name = "publish_mode", nullable = false, updatable = false, length = 16)
    private String publishMode;

    protected OutboxEventRow() {
        // for JPA
    }

    /** A new pending row, due at once; {@code shadow} binds it to the old publishing path (R8.3). */
    public static OutboxEventRow pending(EventId id, OutboxEvent event, OffsetDateTime now, boolean shadow) {
        OutboxEventRow row = new OutboxEventRow();
        row.eventId = id.value();
        row.aggregateType = event.aggregateType();
        row.aggregateId = event.aggregateId();
        row.aggregateVersion = event.aggregateVersion();
        row.eventType = event.eventType();
        row.schemaVersion = event.schemaVersion();
        row.payload = event.payload();
        row.payloadReference = event.payloadReference() == null ? null : event.payloadReference().toString();
        row.createdAt = now;
        row.state = DeliveryState.PENDING;
        row.attempts = 0;
        row.leaseVersion = 0;
        row.publishMode = shadow ? "SHADOW" : "PUBLISH";
        return row;
    }

    public EventId eventId() {
        return new EventId(eventId);
    }

    public OutboxEvent event() {
        return new OutboxEvent(aggregateType, aggregateId, aggregateVersion, eventType, schemaVersion, payload,
                payloadReference == null ? null : URI.create(payloadReference));
    }

    public OffsetDateTime createdAt() {
        return createdAt;
    }

    public DeliveryState state() {
        return state;
    }

    public int attempts() {
        return attempts;
    }

    public String lastErrorClass() {
        return lastErrorClass;
    }

    public String claimedBy() {
        return claimedBy;
    }

    public long leaseVersion() {
        return leaseVersion;
    }

    public OffsetDateTime leaseUntil() {
        return leaseUntil;
    }

    public OffsetDateTime deliveredAt() {
        return deliveredAt;
    }

    public String brokerMessageId() {
        return brokerMessageId;
    }

    public Integer brokerPartition() {
        return brokerPartition;
    }

    public Long brokerOffset() {
        return brokerOffset;
    }
}
