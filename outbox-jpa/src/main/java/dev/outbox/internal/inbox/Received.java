package dev.outbox.internal.inbox;

import dev.outbox.InboxedEvent;
import dev.outbox.internal.event.PreviousVersions;

import java.util.Map;

/**
 * One event as a consumer received it, the one value the inbox decides on: the event, where the broker had it
 * (JMS message id, Kafka topic-partition@offset, for logs, R6.3), the message properties its consumer may read
 * besides the event's own (kept with an event that waits for its turn, so it is applied as it arrived), and the
 * aggregate's earlier versions by type from its {@code outboxPreviousVersions} header (R5.7; null where the message
 * has none: the consumer then waits for the version just before it, whatever types it receives).
 */
public record Received(InboxedEvent event, String brokerId, Map<String, String> properties,
                       PreviousVersions previous) {

    public Received {
        properties = properties == null ? Map.of() : Map.copyOf(properties);
    }

    public Received(InboxedEvent event, String brokerId, Map<String, String> properties) {
        this(event, brokerId, properties, null);
    }

    public Received(InboxedEvent event, String brokerId) {
        this(event, brokerId, Map.of(), null);
    }

    /** The header's text as a value: null for an absent header or one that cannot be read (the safe reading). */
    public static PreviousVersions previousVersions(String header) {
        if (header == null) {
            return null;
        }
        try {
            return PreviousVersions.parse(header);
        } catch (IllegalArgumentException damaged) {
            return null;
        }
    }
}
