package dev.outbox.internal.protocol;

import dev.outbox.spi.OutboundEvent;
import dev.outbox.spi.SendResult;

import java.util.Set;

/**
 * One event's send result, with the claim it was sent under, and the transports of its route that accepted it (or
 * may have: an unknown outcome) whatever the result over the whole route: where the route did not deliver it
 * everywhere, the confirm records them (R6.6).
 */
public record Outcome(OutboundEvent event, SendResult result, Set<String> acceptedBy) {

    public Outcome {
        acceptedBy = Set.copyOf(acceptedBy);
    }

    /** A result of a route whose transports are not told apart (the protocol checker's, one transport). */
    public Outcome(OutboundEvent event, SendResult result) {
        this(event, result, Set.of());
    }
}
