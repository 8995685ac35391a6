package dev.outbox.ops;

/**
 * How many outbox rows are in each delivery state, and what the inbox absorbed.
 *
 * @param pending            rows not yet confirmed by the broker (due, claimed or backing off)
 * @param delivered          rows the broker confirmed, until cleanup removes them
 * @param parked             rows waiting for repair after a deterministic failure (R4.5)
 * @param blocked            pending rows behind a parked earlier version of their aggregate: strict ordering
 *                           holds them until the parked event is repaired (R4.6)
 * @param duplicatesAbsorbed redeliveries that consumers' inboxes recognised and skipped (R5.1)
 */
public record DeliveryCounts(long pending, long delivered, long parked, long blocked, long duplicatesAbsorbed) {
}
