package dev.outbox.spi;

import dev.outbox.EventId;
import dev.outbox.Ordering;
import dev.outbox.OutboxEvent;
import dev.outbox.TraceContext;

import java.time.OffsetDateTime;

/**
 * A claimed event on its way to the broker: the event as recorded, and the claim it travels under.
 *
 * @param id           the event id, sent as a message header so consumers deduplicate on it (R5.1)
 * @param event        the event exactly as recorded; never rebuilt (R2.6)
 * @param createdAt    when the business transaction recorded it
 * @param attempt      the number of this delivery attempt, from 1
 * @param leaseVersion the fencing token of this claim; the confirm only counts while it is unchanged (R4.2)
 * @param shadow       recorded while its event type was in shadow mode: the application's old path sends it, the
 *                     publisher only reports what it would send and never hands it to a transport (R8.3)
 * @param ordering     its event type's ordering policy, sent with the message so consumers know it (R4.6)
 * @param trace        the trace context it was recorded in, sent as the {@code traceparent} and {@code tracestate}
 *                     headers (R6.7); null when it was recorded outside a traced span
 * @param previousVersions for each event type earlier in the aggregate's history, its latest version below this
 *                     event ({@code OrderPlaced=1,OrderPaid=4}), sent as the {@code outboxPreviousVersions} header
 *                     so a consumer receiving only some types knows which version it waits for (R5.7); empty on the
 *                     aggregate's first event and when every earlier event was cleaned up, null on rows that carry
 *                     none (recorded before schema V11, or too many types)
 */
public record OutboundEvent(EventId id, OutboxEvent event, OffsetDateTime createdAt, int attempt, long leaseVersion,
                            boolean shadow, Ordering ordering, TraceContext trace, String previousVersions) {

    /** An event whose earlier versions are not known by type (the record's shape before R5.7's partial views). */
    public OutboundEvent(EventId id, OutboxEvent event, OffsetDateTime createdAt, int attempt, long leaseVersion,
                         boolean shadow, Ordering ordering, TraceContext trace) {
        this(id, event, createdAt, attempt, leaseVersion, shadow, ordering, trace, null);
    }

    /** An event recorded outside a traced span (the record's shape before R6.7). */
    public OutboundEvent(EventId id, OutboxEvent event, OffsetDateTime createdAt, int attempt, long leaseVersion,
                         boolean shadow, Ordering ordering) {
        this(id, event, createdAt, attempt, leaseVersion, shadow, ordering, null, null);
    }

    /** An event the outbox publishes itself, of a strictly ordered type, recorded outside a traced span. */
    public OutboundEvent(EventId id, OutboxEvent event, OffsetDateTime createdAt, int attempt, long leaseVersion) {
        this(id, event, createdAt, attempt, leaseVersion, false, Ordering.STRICT, null, null);
    }

    /** How logs name this event: ids, versions and attempts, never the payload (R6.3). */
    public String describe() {
        return id + " " + event.describe() + " attempt " + attempt;
    }
}
