package dev.outbox.internal.inbox;

import java.io.Serializable;
import java.util.Objects;
import java.util.UUID;

/** The primary key of {@link ProcessedEventRow}: (consumer, event id). */
public class ProcessedEventKey implements Serializable {

    private String consumer;
    private UUID eventId;

    public ProcessedEventKey() {
        // for JPA
    }

    public ProcessedEventKey(String consumer, UUID eventId) {
        this.consumer = consumer;
        this.eventId = eventId;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ProcessedEventKey other && Objects.equals(consumer, other.consumer)
                && Objects.equals(eventId, other.eventId);
    }

    @Override
    public int hashCode() {
        return Objects.hash(consumer, eventId);
    }
}
