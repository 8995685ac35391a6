package dev.outbox.it.flow;

import dev.outbox.it.support.ExampleService;
import dev.outbox.it.support.ExampleService.Reply;
import dev.outbox.it.support.OutboxDatabase;
import dev.outbox.it.support.OutboxDatabase.StoredEvent;
import org.junit.jupiter.api.Test;

import java.math.BigDecimal;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.List;
import java.util.UUID;

import static dev.outbox.it.support.Eventually.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

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
