package dev.outbox.internal.persistence;

import dev.outbox.EventId;
import dev.outbox.OutboxEvent;
import dev.outbox.spi.OutboundEvent;
import org.junit.jupiter.api.Test;

import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.List;
import java.util.UUID;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** A claimed batch leaves in recording order, and one aggregate's versions always in version order (R9.1). */
class SendOrderTest {

    private static final OffsetDateTime T0 = OffsetDateTime.of(2026, 12, 2, 12, 0, 0, 0, ZoneOffset.UTC);

    private static OutboundEvent event(String aggregate, long version, int secondsAfter) {
        return new OutboundEvent(new EventId(UUID.randomUUID()),
                OutboxEvent.of("Order", aggregate, version, "OrderNoted", "{}"), T0.plusSeconds(secondsAfter), 1, 1);
    }

    private static List<String> names(List<OutboundEvent> events) {
        return events.stream().map(e -> e.event().aggregateId() + e.event().aggregateVersion()).toList();
    }

    @Test
    void rowsReturnedInAnyOrderLeaveInTheOrderTheyWereRecorded() {
        List<OutboundEvent> returned = List.of(event("b", 1, 3), event("a", 2, 2), event("a", 1, 1));
        assertEquals(List.of("a1", "a2", "b1"), names(Claims.inSendOrder(returned)));
    }

    @Test
    void oneAggregatesVersionsGoInVersionOrderEvenWhenTheirClocksDisagree() {
        // a2 was recorded by a server whose clock ran behind the one that recorded a1.
        List<OutboundEvent> returned = List.of(event("a", 2, 1), event("b", 1, 2), event("a", 1, 3));
        assertEquals(List.of("a1", "b1", "a2"), names(Claims.inSendOrder(returned)));
    }
}
