package dev.outbox.internal.ops.replay;

import java.time.OffsetDateTime;
import java.util.Map;
import java.util.UUID;

/**
 * The state of one replay request: {@code AWAITING_APPROVAL} (R9.4), {@code EXECUTED} or {@code REJECTED}.
 *
 * @param replayed the events made due again when executed; 0 otherwise
 * @param progress of an executed request, its events by their state now (PENDING: still to be sent; DELIVERED;
 *                 PARKED: refused again); empty otherwise. An event that a later request replays again counts
 *                 in both.
 */
public record ReplayDecision(UUID requestId, String state, String requestedBy, String reason, String selection,
                             int eventCount, String decidedBy, OffsetDateTime decidedAt, int replayed,
                             Map<String, Long> progress) {
}
