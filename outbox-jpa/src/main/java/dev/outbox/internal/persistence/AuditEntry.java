package dev.outbox.internal.persistence;

import java.time.OffsetDateTime;
import java.util.UUID;

/** One administrative action: who, when, what, on which event or replay request. */
public record AuditEntry(UUID auditId, OffsetDateTime at, String actor, String action, UUID eventId, UUID requestId,
                         String detail) {
}
