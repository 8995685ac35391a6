package dev.outbox.internal.persistence;

import dev.outbox.EventId;
import dev.outbox.OutboxEvent;
import dev.outbox.TraceContext;

import java.time.OffsetDateTime;

/**
 * A recorded event as the recorder inserts it ({@link OutboxRows#RECORD}): its id, the event, when it was recorded
 * and the publishing path it is bound to. The rest of the row (due time, claim, lease, delivery) belongs to the
 * database's defaults and the publisher's conditional SQL, never to the recorder (R4.2, R4.3).
 *
 * @param shadow R8.3: bound to the application's old publishing path, so the outbox keeps it without sending it
 * @param trace  R6.7: the trace context of the span that recorded it, or null outside a traced span
 */
public record PendingRow(EventId eventId, OutboxEvent event, OffsetDateTime createdAt, boolean shadow,
                         TraceContext trace) {

    /** A row recorded outside a traced span. */
    public PendingRow(EventId eventId, OutboxEvent event, OffsetDateTime createdAt, boolean shadow) {
        this(eventId, event, createdAt, shadow, null);
    }

    /** The value of {@code publish_mode}. */
    public String publishMode() {
        return shadow ? "SHADOW" : "PUBLISH";
    }
}
