package dev.outbox.internal.record;

import dev.outbox.EventId;

import java.util.List;

/**
 * A CDI event fired after a transaction that recorded outbox events committed: the publisher's wake-up, so
 * delivery does not wait for its next timer tick. A hint only: the {@code outbox_event} table stays the
 * truth, and an observer that misses this finds the rows on its next tick.
 *
 * @param eventIds the events the transaction committed, in the order they were recorded
 */
public record OutboxCommitted(List<EventId> eventIds) {
}
