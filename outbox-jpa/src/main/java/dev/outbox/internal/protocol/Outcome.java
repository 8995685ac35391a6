package dev.outbox.internal.protocol;

import dev.outbox.spi.OutboundEvent;
import dev.outbox.spi.SendResult;

/** One event's send result, with the claim it was sent under. */
public record Outcome(OutboundEvent event, SendResult result) {
}
