package dev.outbox.internal.publish;

import dev.outbox.spi.SendResult;

import java.util.Map;

/**
 * Fired synchronously once per sent batch, before its confirm: how many sends of each event type to each
 * destination ended how (R6.1). The metrics observe it when the server has a metrics API; the publisher never
 * depends on one, so the same EAR deploys on servers with MicroProfile Metrics (Open Liberty) and without it
 * (WildFly 39).
 */
public record BatchSent(Map<Sent, Long> counts) {

    public BatchSent {
        counts = Map.copyOf(counts);
    }

    /** One counter: the outcome the broker gave for an event type at a destination (its route's transports). */
    public record Sent(String eventType, String destination, String outcome) {
        public static Sent of(String eventType, String destination, SendResult result) {
            return new Sent(eventType, destination, result instanceof SendResult.Delivered ? "delivered"
                    : result instanceof SendResult.TransientFailure ? "transient"
                    : result instanceof SendResult.UnknownOutcome ? "unknown" : "permanent");
        }
    }
}
