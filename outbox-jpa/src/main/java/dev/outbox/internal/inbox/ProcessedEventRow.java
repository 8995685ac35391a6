package dev.outbox.internal.inbox;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.IdClass;
import jakarta.persistence.Table;

import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.UUID;

/**
 * One row of {@code processed_event}: consumer {@code consumer} has applied event {@code eventId}. Inserted in
 * the consumer's own transaction, together with the business change (R5.1, R5.3); the key is (consumer,
 * event id), so two consumers sharing one database never absorb each other's events.
 *
 * <p>{@code retain_until} is when cleanup may delete the row: at least the broker's longest redelivery window
 * plus the disaster-recovery window after processing (R5.6, R9.5).
 */
@Entity
@Table(name = "processed_event")
@IdClass(ProcessedEventKey.class)
public class ProcessedEventRow {

    @Id
    @Column(name = "consumer", nullable = false, length = 100)
    private String consumer;

    @Id
    @Column(name = "event_id", nullable = false)
    private UUID eventId;

    @Column(name = "aggregate_type", length = 100)
    private String aggregateType;

    @Column(name = "aggregate_id", length = 200)
    private String aggregateId;

    @Column(name = "aggregate_version")
    private Long aggregateVersion;

    @Column(name = "processed_at", nullable = false)
    private OffsetDateTime processedAt;

    @Column(name = "retain_until", nullable = false)
    private OffsetDateTime retainUntil;

    @Column(name = "duplicates", nullable = false)
    private int duplicates;

    protected ProcessedEventRow() {
        // for JPA
    }

    public static ProcessedEventRow processedNow(String consumer, UUID eventId, String aggregateType,
                                                 String aggregateId, Long aggregateVersion,
                                                 OffsetDateTime now, Duration retention) {
        ProcessedEventRow row = new ProcessedEventRow();
        row.consumer = consumer;
        row.eventId = eventId;
        row.aggregateType = aggregateType;
        row.aggregateId = aggregateId;
        row.aggregateVersion = aggregateVersion;
        row.processedAt = now;
        row.retainUntil = now.plus(retention);
        row.duplicates = 0;
        return row;
    }

    public String consumer() {
        return consumer;
    }

    public UUID eventId() {
        return eventId;
    }

    public OffsetDateTime processedAt() {
        return processedAt;
    }

    public OffsetDateTime retainUntil() {
        return retainUntil;
    }

    /** How many redeliveries of this event the inbox absorbed for this consumer. */
    public int duplicates() {
        return duplicates;
    }
}
