package dev.outbox.it.flow;

import dev.outbox.it.support.ExampleService;
import dev.outbox.it.support.ExampleService.Reply;
import dev.outbox.it.support.OutboxDatabase;
import dev.outbox.it.support.OutboxDatabase.StoredEvent;
import dev.outbox.it.support.TracedOrders;
import dev.outbox.it.support.TracedOrders.TracedOrder;
import org.junit.jupiter.api.Test;

import java.math.BigDecimal;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.List;
import java.util.UUID;

import static dev.outbox.it.support.Eventually.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What every server must do with the example EAR, end to end through its JMS engine: the leased publisher
 * sends, the shipping MDB consumes behind the inbox, and a re-sent event is absorbed (R4, R5). Open Liberty
 * (DeliveryIT, on H2 and PostgreSQL) and WildFly run these same tests on their own deployment.
 */
public abstract class DeliveryContract {

    protected static final Duration SOON = Duration.ofSeconds(20);

    protected final ExampleService service = ExampleService.fromSystemProperties();
    protected final OutboxDatabase db = OutboxDatabase.fromSystemProperties();

    protected String placeAndPay(String customer) {
        Reply placed = service.placeOrder(customer, new BigDecimal("9.99"));
        assertEquals(201, placed.status(), placed.toString());
        assertEquals(200, service.pay(placed.orderId(), 1).status());
        return placed.orderId();
    }

    protected List<StoredEvent> awaitDelivered(String orderId, int count) {
        return await(SOON, count + " events of " + orderId + " delivered", () -> db.eventsOf(orderId),
                events -> events.size() == count && events.stream().allMatch(e -> e.state().equals("DELIVERED")));
    }

    protected long shipmentsOf(String orderId) {
        return db.countWhere("shipment", "order_id", orderId);
    }

    /** Everything the server logged so far: its OpenTelemetry logging exporter writes each ended span there. */
    protected abstract String serverLog();

    /**
     * R6.7 end to end with OpenTelemetry on (Liberty's mpTelemetry, WildFly's OpenTelemetry subsystem, each with the
     * SDK on and the logging exporter, which writes each ended span to the server's log): each command is sent with
     * a trace of its own in {@code traceparent}, as a traced client would, and the shipping consumer's span for each
     * event is in the trace of the request that recorded it, naming the event's id and type, and nothing of its
     * payload.
     */
    @Test
    void theConsumersSpanForEachEventIsInTheTraceOfTheRequestThatRecordedIt() {
        String secret = "TRACE-SECRET-" + UUID.randomUUID();
        TracedOrder order = TracedOrders.placeAndPay(service, "traced-" + UUID.randomUUID(), secret);
        List<StoredEvent> events = awaitDelivered(order.orderId(), 2);
        await(SOON, "one shipment for " + order.orderId(), () -> shipmentsOf(order.orderId()), n -> n == 1);

        String placedSpan = await(SOON, "the shipping consumer's span for OrderPlaced in the server's log",
                () -> TracedOrders.spans(serverLog(), "shipping process", events.get(0).eventId()),
                spans -> !spans.isEmpty()).get(0);
        String paidSpan = await(SOON, "the shipping consumer's span for OrderPaid in the server's log",
                () -> TracedOrders.spans(serverLog(), "shipping process", events.get(1).eventId()),
                spans -> !spans.isEmpty()).get(0);
        assertTrue(TracedOrders.inTrace(placedSpan, order.placeTrace()) && placedSpan.contains(" CONSUMER "),
                "OrderPlaced is consumed in the trace of the request that placed the order: " + placedSpan);
        assertTrue(TracedOrders.inTrace(paidSpan, order.payTrace()) && paidSpan.contains("outbox.event.type=OrderPaid"),
                "OrderPaid is consumed in the trace of the request that paid it: " + paidSpan);
        assertTrue(placedSpan.contains("outbox.outcome=FIRST"), "the inbox's decision is on the span: " + placedSpan);
        assertTrue(serverLog().contains("'outbox publish' : "), "the publisher's batch span was exported too");
        assertFalse(serverLog().contains(secret), "no payload in any span or log line (R6.3)");
    }

    @Test
    void aPaidOrderIsDeliveredWithBrokerIdsAndShippedExactlyOnce() {
        String orderId = placeAndPay("flow-" + UUID.randomUUID());

        List<StoredEvent> delivered = awaitDelivered(orderId, 2);
        delivered.forEach(e -> assertNotNull(e.brokerMessageId(), "the JMS message id is recorded (R4.7): " + e));
        await(SOON, "one shipment for " + orderId, () -> shipmentsOf(orderId), n -> n == 1);
        assertEquals(2, db.countWhere("processed_event", "aggregate_id", orderId),
                "the inbox marked both events for the shipping consumer");
    }

    @Test
    void anEventSentAgainAfterALostConfirmIsAbsorbedByTheInbox() {
        String orderId = placeAndPay("redelivery-" + UUID.randomUUID());
        StoredEvent paid = awaitDelivered(orderId, 2).get(1);
        await(SOON, "one shipment", () -> shipmentsOf(orderId), n -> n == 1);
        long duplicatesBefore = service.stats().body().getJsonNumber("duplicatesAbsorbed").longValue();

        // As if the publisher died after the broker accepted and before its confirm (R4.3): the row is due again.
        assertEquals(1, db.execute("UPDATE outbox_event SET state = 'PENDING', delivered_at = NULL,"
                + " next_attempt_at = ?, claimed_by = NULL WHERE event_id = ?",
                OffsetDateTime.now(ZoneOffset.UTC).minusSeconds(1), paid.eventId()));

        StoredEvent resent = await(SOON, "OrderPaid delivered again", () -> db.eventsOf(orderId).get(1),
                e -> e.state().equals("DELIVERED") && !paid.brokerMessageId().equals(e.brokerMessageId()));
        assertEquals(paid.eventId(), resent.eventId(), "the same event id travels again (R2.2)");
        await(SOON, "the duplicate absorbed", () -> service.stats().body().getJsonNumber("duplicatesAbsorbed").longValue(),
                n -> n == duplicatesBefore + 1);
        assertEquals(1, shipmentsOf(orderId), "still exactly one shipment");
    }
}
