package dev.outbox;

import java.util.Locale;

/**
 * An event type's ordering policy (R4.6). It travels with every message ({@code outboxOrdering}), so a consumer
 * gates only strict types on aggregate versions and applies independent ones in whatever order they arrive.
 */
public enum Ordering {

    /** Later versions of the aggregate wait for this one, at the publisher and at every consumer. */
    STRICT,
    /** May pass and be passed by other versions of its aggregate (a retried send, several workers). */
    INDEPENDENT;

    /** The header value: {@code strict} or {@code independent}. */
    public String header() {
        return name().toLowerCase(Locale.ROOT);
    }

    /**
     * The policy a message names. A message without one came from a publisher older than the header and is
     * treated as strict, as every event was then.
     */
    public static Ordering ofHeader(String value) {
        return "independent".equalsIgnoreCase(value) ? INDEPENDENT : STRICT;
    }
}
