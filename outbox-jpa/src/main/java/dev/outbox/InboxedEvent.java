package dev.outbox;

import java.util.Optional;

/**
 * An outbox event as a consumer receives it, read from the message's headers: the ids and versions, its type's
 * ordering policy, and the payload exactly as recorded. The inbox decides on it; a Kafka consumer's business code
 * gets it once the inbox has let it through.
 *
 * @param trace the trace context the event was recorded in, from the message's {@code traceparent} and
 *              {@code tracestate} (R6.7); null when it carried none
 */
public record InboxedEvent(EventId eventId, String eventType, String aggregateType, String aggregateId,
                           Long aggregateVersion, Integer schemaVersion, Ordering ordering, String payload,
                           TraceContext trace) {

    /** An event that carries no trace context. */
    public InboxedEvent(EventId eventId, String eventType, String aggregateType, String aggregateId,
                        Long aggregateVersion, Integer schemaVersion, Ordering ordering, String payload) {
        this(eventId, eventType, aggregateType, aggregateId, aggregateVersion, schemaVersion, ordering, payload, null);
    }

    /** The trace context the event was recorded in, if it carried one. */
    public Optional<TraceContext> traceContext() {
        return Optional.ofNullable(trace);
    }

    /** How logs name it: ids and versions, never the payload (R6.3). */
    public String describe() {
        return eventId + " " + eventType + " of " + aggregateType + "/" + aggregateId + " at version "
                + aggregateVersion;
    }
}
