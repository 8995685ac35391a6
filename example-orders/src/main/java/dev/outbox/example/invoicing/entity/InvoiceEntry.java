package dev.outbox.example.invoicing.entity;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;

import java.time.OffsetDateTime;
import java.util.UUID;

/** One event the invoicing consumer applied, and the version its invoice was at just before. */
@Entity
@Table(name = "invoice_entry")
public class InvoiceEntry {

    @Id
    @Column(name = "event_id")
    private UUID eventId;

    @Column(name = "order_id", nullable = false, length = 36)
    private String orderId;

    @Column(name = "version", nullable = false)
    private long version;

    @Column(name = "previous_version")
    private Long previousVersion;

    @Column(name = "event_type", nullable = false, length = 100)
    private String eventType;

    @Column(name = "applied_at", nullable = false)
    private OffsetDateTime appliedAt;

    protected InvoiceEntry() {
        // for JPA
    }

    public InvoiceEntry(UUID eventId, String orderId, long version, Long previousVersion, String eventType,
                        OffsetDateTime appliedAt) {
        this.eventId = eventId;
        this.orderId = orderId;
        this.version = version;
        this.previousVersion = previousVersion;
        this.eventType = eventType;
        this.appliedAt = appliedAt;
    }
}
