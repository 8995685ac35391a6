package dev.outbox.kafka;

import dev.outbox.EventId;
import dev.outbox.Ordering;

/**
 * An outbox event as a Kafka consumer's business code sees it, after the inbox has let it through: the ids
 * and versions from the record's headers, its type's ordering policy, and the payload exactly as recorded.
 */
public record InboxedEvent(EventId eventId, String eventType, String aggregateType, String aggregateId,
                           Long aggregateVersion, Integer schemaVersion, Ordering ordering, String payload) {

    /** How logs name it: ids and versions, never the payload (R6.3). */
    public String describe() {
        return eventId + " " + eventType + " of " + aggregateType + "/" + aggregateId + " at version "
                + aggregateVersion;
    }
}
