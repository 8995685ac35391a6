package dev.outbox.internal.transport.jms;

import dev.outbox.EventId;
import dev.outbox.OutboxEvent;
import dev.outbox.spi.OutboundEvent;
import dev.outbox.spi.SendDeadline;
import dev.outbox.spi.SendResult;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.stream.IntStream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** R4.3: a JMS batch stops at its lease deadline; what it did not hand over is retried, not sent late. */
class JmsBatchDeadlineTest {

    private static List<OutboundEvent> events(int count) {
        return IntStream.rangeClosed(1, count).mapToObj(v -> new OutboundEvent(new EventId(UUID.randomUUID()),
                OutboxEvent.of("Order", "o-1", v, "OrderAmended", "{}"), OffsetDateTime.now(), 1, 1)).toList();
    }

    @Test
    void aBatchWhoseSendsBlockStopsAtTheDeadlineAndReportsTheRestTransient() {
        SendDeadline deadline = SendDeadline.in(Duration.ofMillis(150));
        List<Boolean> handedBeforeDeadline = new ArrayList<>();
        List<SendResult> results = new ArrayList<>();

        JmsBatch.sendUntil(events(20), deadline, results, event -> {
            handedBeforeDeadline.add(!deadline.passed());
            sleep(50); // a broker under flow control
            return new SendResult.Delivered("ID:" + handedBeforeDeadline.size(), null, null);
        });

        assertEquals(20, results.size(), "one result per event of the batch");
        assertFalse(handedBeforeDeadline.contains(false), "no message may be handed to the broker after the deadline");
        assertTrue(handedBeforeDeadline.size() < 20, "a batch of 20 sends of 50 ms must stop at a 150 ms deadline,"
                + " but all " + handedBeforeDeadline.size() + " were sent");
        List<SendResult> rest = results.subList(handedBeforeDeadline.size(), 20);
        assertTrue(rest.stream().allMatch(r -> r.equals(new SendResult.TransientFailure(SendDeadline.LEASE_DEADLINE))),
                "the events not sent are transient failures named LeaseDeadline: " + rest);
    }

    @Test
    void aBatchWithinItsDeadlineSendsEveryEvent() {
        List<SendResult> results = new ArrayList<>();
        JmsBatch.sendUntil(events(5), SendDeadline.in(Duration.ofMinutes(1)), results,
                event -> new SendResult.Delivered("ID", null, null));
        assertTrue(results.stream().allMatch(SendResult.Delivered.class::isInstance), "all five delivered: " + results);
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
