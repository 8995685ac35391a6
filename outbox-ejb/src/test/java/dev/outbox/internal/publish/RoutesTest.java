package dev.outbox.internal.publish;

import dev.outbox.EventId;
import dev.outbox.OutboxEvent;
import dev.outbox.internal.config.InvalidSettingException;
import dev.outbox.spi.OutboundEvent;
import dev.outbox.spi.SendDeadline;
import dev.outbox.spi.SendResult;
import dev.outbox.spi.Transport;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Routes: which broker gets which event type, and what an event sent to two brokers counts as. */
class RoutesTest {

    /** A transport that records what it was handed and answers from a script: pure routing logic, no broker. */
    static class Recording implements Transport {
        final String name;
        final List<String> sent = new ArrayList<>();
        final Map<String, SendResult> answers;

        Recording(String name, Map<String, SendResult> answers) {
            this.name = name;
            this.answers = answers;
        }

        @Override
        public String name() {
            return name;
        }

        @Override
        public List<SendResult> send(List<OutboundEvent> events, SendDeadline deadline) {
            events.forEach(e -> sent.add(e.event().aggregateId() + ":" + e.event().eventType()));
            return events.stream().map(e -> deadline.passed() ? deadline.missed() : answers.getOrDefault(e.event().eventType(),
                    new SendResult.Delivered(name + "-id", name.equals("kafka") ? 1 : null, name.equals("kafka") ? 7L : null)))
                    .toList();
        }
    }

    private static OutboundEvent event(String aggregate, String type) {
        return new OutboundEvent(new EventId(UUID.randomUUID()), OutboxEvent.of("Order", aggregate, 1, type, "{}"),
                OffsetDateTime.now(), 1, 1);
    }

    private static Routes routes(Map<String, String> settings, Transport... deployed) {
        return Routes.read(name -> Optional.ofNullable(settings.get(name)), settings.keySet(), List.of(deployed));
    }

    @Test
    void eachEventTypeGoesToItsOwnTransportAndTheDefaultTakesTheRest() {
        Recording jms = new Recording("jms", Map.of());
        Recording kafka = new Recording("kafka", Map.of());
        Routes routes = routes(Map.of("outbox.publisher.transport", "jms",
                "outbox.publisher.transport.OrderPaid", "kafka"), jms, kafka);

        List<SendResult> results = routes.send(List.of(event("a", "OrderPlaced"), event("a", "OrderPaid"),
                event("b", "OrderPlaced")), SendDeadline.never()).stream().map(Routes.Routed::result).toList();

        assertEquals(List.of("a:OrderPlaced", "b:OrderPlaced"), jms.sent, "JMS gets the default types, in claim order");
        assertEquals(List.of("a:OrderPaid"), kafka.sent, "Kafka gets only OrderPaid");
        assertEquals(3, results.size(), "one result per claimed event");
        assertEquals(1, ((SendResult.Delivered) results.get(1)).partition(), "results stay in the batch's order");
    }

    @Test
    void anEventRoutedToTwoBrokersIsDeliveredOnlyWhenBothAckedIt() {
        Recording jms = new Recording("jms", Map.of());
        Recording kafka = new Recording("kafka", Map.of("OrderPaid", new SendResult.TransientFailure("TimeoutException")));
        Routes routes = routes(Map.of("outbox.publisher.transport", "jms, kafka"), jms, kafka);

        List<Routes.Routed> routed = routes.send(List.of(event("a", "OrderPlaced"), event("a", "OrderPaid")),
                SendDeadline.never());
        List<SendResult> results = routed.stream().map(Routes.Routed::result).toList();

        SendResult.Delivered both = assertInstanceOf(SendResult.Delivered.class, results.get(0));
        assertEquals("jms-id kafka-id", both.brokerMessageId(), "both broker ids are kept");
        assertEquals(7L, both.offset(), "the Kafka offset is recorded");
        assertInstanceOf(SendResult.TransientFailure.class, results.get(1),
                "a Kafka failure keeps the event pending although JMS took it: the retry goes to both");
        assertEquals(Set.of("jms"), routed.get(1).acceptedBy(), "JMS took the event Kafka did not: the confirm"
                + " records it, so its body is never repaired (issue 42 item 2)");
    }

    /**
     * Issue 42 item 2 (R6.6): Kafka took the event, JMS refused it as too large; the event parks, and the route says
     * which broker holds it, so a repair of its body (which JMS's consumers would apply and Kafka's would absorb as a
     * duplicate of the old one) is refused. An unknown outcome counts as taken.
     */
    @Test
    void theTransportsThatTookAnEventTheRouteDidNotDeliverAreNamed() {
        Recording jms = new Recording("jms", Map.of("OrderPlaced", new SendResult.PermanentFailure("MessageTooLarge"),
                "OrderPaid", new SendResult.UnknownOutcome("TimeoutException")));
        Recording kafka = new Recording("kafka", Map.of("OrderPaid", new SendResult.PermanentFailure("RecordTooLarge")));
        Routes routes = routes(Map.of("outbox.publisher.transport", "jms,kafka"), jms, kafka); // two aggregates

        List<Routes.Routed> routed = routes.send(List.of(event("a", "OrderPlaced"), event("b", "OrderPaid")),
                SendDeadline.never());

        assertInstanceOf(SendResult.PermanentFailure.class, routed.get(0).result(), "it parks");
        assertEquals(Set.of("kafka"), routed.get(0).acceptedBy(), "Kafka took it");
        assertInstanceOf(SendResult.PermanentFailure.class, routed.get(1).result());
        assertEquals(Set.of("jms"), routed.get(1).acceptedBy(), "JMS may have taken it (the send timed out)");
    }

    @Test
    void theGravestFailureDecidesForAnEventOnTwoBrokers() {
        SendResult delivered = new SendResult.Delivered("x", null, null);
        assertInstanceOf(SendResult.PermanentFailure.class, Routes.combine(List.of(
                new SendResult.UnknownOutcome("u"), new SendResult.PermanentFailure("MessageTooLarge"))));
        assertInstanceOf(SendResult.UnknownOutcome.class, Routes.combine(List.of(
                new SendResult.TransientFailure("t"), new SendResult.UnknownOutcome("u"))));
        assertInstanceOf(SendResult.TransientFailure.class, Routes.combine(List.of(delivered,
                new SendResult.TransientFailure("t"))));
        assertEquals(delivered, Routes.combine(List.of(delivered)));
    }

    @Test
    void anUnknownTransportNameStopsStartUpNamingTheVariable() {
        InvalidSettingException e = assertThrows(InvalidSettingException.class, () -> routes(
                Map.of("outbox.publisher.transport", "jms", "outbox.publisher.transport.OrderPaid", "kafak"),
                new Recording("jms", Map.of()), new Recording("kafka", Map.of())));
        assertEquals("outbox.publisher.transport.OrderPaid", e.name());
        assertTrue(e.getMessage().contains("kafak") && e.getMessage().contains("jms, kafka"), e.getMessage());
        assertThrows(InvalidSettingException.class, () -> routes(Map.of("outbox.publisher.transport", " , "),
                new Recording("jms", Map.of())), "an empty route is refused");
    }

    /** Issue 16 item 6: a send that can outlive its lease is sent again by a takeover while still on its way. */
    @Test
    void aLeaseNoLongerThanATransportsLongestSendStopsTheStartNamingBothSettings() {
        Transport slow = new Recording("kafka", Map.of()) {
            @Override
            public Optional<SendBound> longestSend() {
                return Optional.of(new SendBound(Duration.ofSeconds(25), "outbox.kafka.send-timeout-ms + ..."));
            }
        };
        Routes routes = routes(Map.of("outbox.publisher.transport", "kafka"), slow);
        InvalidSettingException refused = assertThrows(InvalidSettingException.class,
                () -> routes.refuseSendsLongerThan(Duration.ofSeconds(25)));
        assertEquals("outbox.publisher.lease-ms", refused.name());
        assertTrue(refused.getMessage().contains("outbox.kafka.send-timeout-ms") && refused.getMessage().contains("25000"),
                refused.getMessage());
        routes.refuseSendsLongerThan(Duration.ofSeconds(30)); // the defaults: 5 s + 15 s + 5 s under a 30 s lease
    }
}
