package dev.outbox.publish;

import dev.outbox.transport.OutboundEvent;
import dev.outbox.transport.SendResult;

/** One event's send result, with the claim it was sent under. */
public record Outcome(OutboundEvent event, SendResult result) {
}
