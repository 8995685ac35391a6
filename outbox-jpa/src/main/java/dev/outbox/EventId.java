package dev.outbox;

import dev.outbox.internal.event.UuidV7;

import java.util.Objects;
import java.util.UUID;

/**
 * The identity of one event. Generated once, in the business transaction that records the event, and never
 * replaced by a retry, a repair or a replay (R2.2, R9.3): consumers deduplicate on it.
 */
public record EventId(UUID value) {

    public EventId {
        Objects.requireNonNull(value, "event id");
    }

    /** A new time-ordered (UUID version 7) id. */
    public static EventId next() {
        return new EventId(UuidV7.next());
    }

    public static EventId parse(String text) {
        return new EventId(UUID.fromString(text));
    }

    @Override
    public String toString() {
        return value.toString();
    }
}
