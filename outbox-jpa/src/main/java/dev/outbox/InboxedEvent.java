package dev.outbox;

/**
 * An outbox event as a consumer receives it, read from the message's headers: the ids and versions, its type's
 * ordering policy, and the payload exactly as recorded. The inbox decides on it; a Kafka consumer's business code
 * gets it once the inbox has let it through.
 */
public record InboxedEvent(EventId eventId, String eventType, String aggregateType, String aggregateId,
                           Long aggregateVersion, Integer schemaVersion, Ordering ordering, String payload) {

    /** How logs name it: ids and versions, never the payload (R6.3). */
    public String describe() {
        return eventId + " " + eventType + " of " + aggregateType + "/" + aggregateId + " at version "
                + aggregateVersion;
    }
}
