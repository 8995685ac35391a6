package dev.outbox.internal.ops.replay;

import java.time.OffsetDateTime;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * The state of one replay request: {@code AWAITING_APPROVAL} (R9.4), {@code EXECUTED} or {@code REJECTED}.
 *
 * @param replayed the events made due again when executed; 0 otherwise
 * @param progress of an executed request, its events by their state now (PENDING: still to be sent; DELIVERED;
 *                 PARKED: refused again); empty otherwise. An event that a later request replays again counts
 *                 in both.
 * @param change   of a waiting content change's request, as shown to whoever reads it ({@link Replay#show}): what
 *                 changes (empty: nothing does); null where nothing is shown (another kind, or a decided change,
 *                 whose bodies are no longer kept)
 */
public record ReplayDecision(UUID requestId, String state, String requestedBy, String reason, String selection,
                             int eventCount, String decidedBy, OffsetDateTime decidedAt, int replayed,
                             Map<String, Long> progress, List<ContentDiff.Change> change) {

    public ReplayDecision {
        change = change == null ? null : List.copyOf(change);
    }

    ReplayDecision withChange(List<ContentDiff.Change> shown) {
        return new ReplayDecision(requestId, state, requestedBy, reason, selection, eventCount, decidedBy, decidedAt,
                replayed, progress, shown);
    }
}
