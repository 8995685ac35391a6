package dev.outbox.internal.inbox;

import dev.outbox.InboxedEvent;

import java.util.Map;

/**
 * One event as a consumer received it, the one value the inbox decides on: the event, where the broker had it
 * (JMS message id, Kafka topic-partition@offset, for logs, R6.3), and the message properties its consumer may read
 * besides the event's own (kept with an event that waits for its turn, so it is applied as it arrived).
 */
public record Received(InboxedEvent event, String brokerId, Map<String, String> properties) {

    public Received {
        properties = properties == null ? Map.of() : Map.copyOf(properties);
    }

    public Received(InboxedEvent event, String brokerId) {
        this(event, brokerId, Map.of());
    }
}
