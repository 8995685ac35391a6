package dev.outbox.internal.ops.replay;

import java.time.OffsetDateTime;
import java.util.UUID;

/**
 * The state of one replay request: {@code AWAITING_APPROVAL} (R9.4), {@code EXECUTED} or {@code REJECTED}.
 *
 * @param replayed the events made due again when executed; 0 otherwise
 * @param pending  of an executed request, its events still waiting to be sent again: its progress; 0 otherwise
 */
public record ReplayDecision(UUID requestId, String state, String requestedBy, String reason, String selection,
                             int eventCount, String decidedBy, OffsetDateTime decidedAt, int replayed, long pending) {
}
