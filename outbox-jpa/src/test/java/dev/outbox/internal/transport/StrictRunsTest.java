package dev.outbox.internal.transport;

import dev.outbox.EventId;
import dev.outbox.Ordering;
import dev.outbox.OutboxEvent;
import dev.outbox.spi.OutboundEvent;
import dev.outbox.spi.SendResult;
import org.junit.jupiter.api.Test;

import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.UUID;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

/** R4.6, issue 16 item 10: a strict run reaches the broker in order and stops at its first failure. */
class StrictRunsTest {

    private static OutboundEvent event(String aggregate, long version, Ordering ordering) {
        return new OutboundEvent(new EventId(UUID.randomUUID()), OutboxEvent.of("Order", aggregate, version, "T", "{}"),
                OffsetDateTime.now(), 1, 1, false, ordering);
    }

    private static String name(OutboundEvent e) {
        return e.event().aggregateId() + "@" + e.event().aggregateVersion();
    }

    @Test
    void aBatchWithoutRunsIsOneSend() {
        List<List<String>> sends = new ArrayList<>();
        List<OutboundEvent> batch = List.of(event("a", 1, Ordering.STRICT), event("b", 1, Ordering.STRICT),
                event("a", 2, Ordering.INDEPENDENT));
        StrictRuns.send(batch, wave -> {
            sends.add(wave.stream().map(StrictRunsTest::name).toList());
            return wave.stream().<SendResult>map(e -> new SendResult.Delivered("m", null, null)).toList();
        });
        assertEquals(List.of(List.of("a@1", "b@1", "a@2")), sends, "independent versions need no wave of their own");
    }

    @Test
    void eachStrictVersionGoesOnlyAfterTheOneBeforeItWasDelivered() {
        List<List<String>> sends = new ArrayList<>();
        List<OutboundEvent> batch = List.of(event("a", 1, Ordering.STRICT), event("a", 2, Ordering.STRICT),
                event("a", 3, Ordering.STRICT), event("b", 1, Ordering.STRICT), event("b", 2, Ordering.STRICT));
        Set<String> failing = Set.of("a@2");
        List<SendResult> results = StrictRuns.send(batch, wave -> {
            sends.add(wave.stream().map(StrictRunsTest::name).toList());
            return wave.stream().<SendResult>map(e -> failing.contains(name(e))
                    ? new SendResult.UnknownOutcome("AckTimeout") : new SendResult.Delivered("m", null, null)).toList();
        });
        assertEquals(List.of(List.of("a@1", "b@1"), List.of("a@2", "b@2")), sends,
                "a@3 is never sent: a@2's outcome is unknown");
        assertInstanceOf(SendResult.Delivered.class, results.get(0));
        assertInstanceOf(SendResult.UnknownOutcome.class, results.get(1));
        assertEquals(new SendResult.TransientFailure(StrictRuns.EARLIER_VERSION_NOT_DELIVERED), results.get(2),
                "a@3 waits for a@2's retry");
        assertInstanceOf(SendResult.Delivered.class, results.get(4), "b's run goes on");
    }

    /** The reviewer's case: an independent version between two strict ones fails; the strict one after it waits. */
    @Test
    void aStrictVersionWaitsForAnIndependentVersionBeforeItInTheBatch() {
        List<OutboundEvent> batch = List.of(event("x", 1, Ordering.STRICT), event("x", 2, Ordering.INDEPENDENT),
                event("x", 3, Ordering.STRICT));
        List<String> sent = new ArrayList<>();
        List<SendResult> results = StrictRuns.send(batch, wave -> wave.stream().<SendResult>map(e -> {
            sent.add(name(e));
            return e.event().aggregateVersion() == 2 ? new SendResult.PermanentFailure("MessageTooLarge")
                    : new SendResult.Delivered("m", null, null);
        }).toList());
        assertEquals(List.of("x@1", "x@2"), sent, "x@3 must not reach the broker while x@2 is not delivered");
        assertEquals(new SendResult.TransientFailure(StrictRuns.EARLIER_VERSION_NOT_DELIVERED), results.get(2));
    }
}
