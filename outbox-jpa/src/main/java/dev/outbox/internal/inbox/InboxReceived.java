package dev.outbox.internal.inbox;

import dev.outbox.EventId;
import dev.outbox.Inbox;

/**
 * Fired (synchronously, in the consumer's transaction) for every delivery the inbox decides on, whatever the
 * transaction's outcome: the metrics count duplicates and measure publish-to-consume latency from it (R6.1).
 */
public record InboxReceived(String consumer, EventId eventId, Inbox.Receipt receipt) {
}
