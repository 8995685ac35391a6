package dev.outbox;

import java.net.URI;

/**
 * An integration event as the business code hands it to {@code OutboxRecorder}: the external contract, not a
 * table row (R2.4). It is only a draft until recorded; the recorder checks every field and names the one that
 * is wrong.
 *
 * @param aggregateType    the kind of aggregate, such as {@code Order}; also the default topic family
 * @param aggregateId      the aggregate's stable id; the broker partition key (R9.1)
 * @param aggregateVersion the aggregate's version this event produces, from 1; orders the events of one
 *                         aggregate (R2.3) and is unique per aggregate (R3.3). One aggregate's events, of every
 *                         type together, number 1, 2, 3 ... with no hole: a consumer applies a strictly ordered
 *                         event only after every lower version of its aggregate (R5.7), so an event recorded at 5
 *                         when 4 was never recorded waits at every consumer until an operator skips the gap (the
 *                         consumers' gap metric and the admin API's gap list name it). The simplest source is the
 *                         aggregate's own optimistic-lock version after the change
 * @param eventType        what happened, such as {@code OrderPaid}
 * @param schemaVersion    the version of this event type's payload schema, from 1 (R2.5)
 * @param payload          the event body as a JSON object, built from the values this transaction commits
 *                         (R2.6); {@code null} when {@code payloadReference} is set
 * @param payloadReference a reference to an immutable resource version holding a large body (R3.5);
 *                         {@code null} when {@code payload} is set
 */
public record OutboxEvent(String aggregateType, String aggregateId, long aggregateVersion, String eventType,
                          int schemaVersion, String payload, URI payloadReference) {

    /** An event with a JSON payload at schema version 1. */
    public static OutboxEvent of(String aggregateType, String aggregateId, long aggregateVersion,
                                 String eventType, String jsonPayload) {
        return new OutboxEvent(aggregateType, aggregateId, aggregateVersion, eventType, 1, jsonPayload, null);
    }

    /** An event whose body lives in an immutable resource the consumer can read (R3.5). */
    public static OutboxEvent referencing(String aggregateType, String aggregateId, long aggregateVersion,
                                          String eventType, URI immutableResource) {
        return new OutboxEvent(aggregateType, aggregateId, aggregateVersion, eventType, 1, null, immutableResource);
    }

    public OutboxEvent withSchemaVersion(int version) {
        return new OutboxEvent(aggregateType, aggregateId, aggregateVersion, eventType, version, payload,
                payloadReference);
    }

    /** How logs name this event: ids and versions only, never the payload (R6.3). */
    public String describe() {
        return eventType + " (schema " + schemaVersion + ") of " + aggregateType + "/" + aggregateId
                + " at version " + aggregateVersion;
    }
}
