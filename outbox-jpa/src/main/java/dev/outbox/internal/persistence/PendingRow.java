package dev.outbox.internal.persistence;

import dev.outbox.EventId;
import dev.outbox.OutboxEvent;

import java.time.OffsetDateTime;

/**
 * A recorded event as the recorder inserts it ({@link OutboxRows#RECORD}): its id, the event, when it was recorded
 * and the publishing path it is bound to. The rest of the row (due time, claim, lease, delivery) belongs to the
 * database's defaults and the publisher's conditional SQL, never to the recorder (R4.2, R4.3).
 *
 * @param shadow R8.3: bound to the application's old publishing path, so the outbox keeps it without sending it
 */
public record PendingRow(EventId eventId, OutboxEvent event, OffsetDateTime createdAt, boolean shadow) {

    /** The value of {@code publish_mode}. */
    public String publishMode() {
        return shadow ? "SHADOW" : "PUBLISH";
    }
}
