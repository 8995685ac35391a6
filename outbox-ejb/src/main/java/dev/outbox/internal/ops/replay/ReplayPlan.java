package dev.outbox.internal.ops.replay;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * What a replay would do, shown before it does anything (R9.2): how many delivered events it sends again, of
 * which types, to which destinations, which consumers already applied them and which external side effects
 * they recorded (where the consumers' inboxes share this database), and whether a second person must approve.
 *
 * @param eventIds         the events it sends again, oldest first, with their original ids (R9.3)
 * @param skipped          selected ids it will not send, with why (unknown, or not delivered)
 * @param consumers        consumer to the number of these events its inbox holds (from the first events)
 * @param sideEffects      "consumer/effect STATE" to count: external calls a consumer made for these events (R5.4)
 * @param sampled          how many of the events the consumer and side-effect figures were read from
 * @param approvalRequired more events than {@code outbox.replay.approval-threshold}, with what the caller replayed,
 *                         resumed or changed without a second approver within {@code outbox.replay.approval-window}
 * @param duration         how long the rate limit spreads the re-sends over
 */
public record ReplayPlan(List<UUID> eventIds, Map<String, String> skipped, Map<String, Long> byEventType,
                         Map<String, Long> destinations, Map<String, Long> consumers, Map<String, Long> sideEffects,
                         int sampled, boolean approvalRequired, Duration duration) {

    public int events() {
        return eventIds.size();
    }
}
