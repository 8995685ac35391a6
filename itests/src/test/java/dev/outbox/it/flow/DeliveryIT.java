package dev.outbox.it.flow;

import dev.outbox.internal.persistence.RecordedRow;
import dev.outbox.it.support.ExampleService.Reply;
import dev.outbox.it.support.OutboxDatabase.StoredEvent;
import dev.outbox.it.support.ServerLog;
import dev.outbox.it.support.ServerLogOnFailure;
import dev.outbox.it.support.ServerOverrides;
import dev.outbox.it.support.Settings;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.shrinkwrap.api.ShrinkWrap;
import org.jboss.shrinkwrap.api.spec.EnterpriseArchive;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.io.File;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.UUID;

import static dev.outbox.it.support.Eventually.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Publish and consume on the real server: the leased publisher sends to the embedded JMS engine, the shipping
 * MDB consumes behind the inbox (R4, R5): the {@link DeliveryContract} every server passes, and Liberty's own
 * failure drills. Runs on H2 and on PostgreSQL. The server has a 2000-byte JMS message
 * limit and quick retries (itests/src/test/liberty/itests.xml).
 */
@ExtendWith({ArquillianExtension.class, ServerLogOnFailure.class})
class DeliveryIT extends DeliveryContract {

    @Deployment(testable = false)
    static EnterpriseArchive exampleEar() {
        return ShrinkWrap.createFromZipFile(EnterpriseArchive.class, new File(Settings.required("it.ear")));
    }

    @Override
    protected String serverLog() {
        return ServerLog.everything();
    }

    @Test
    void aConsumerThatFailsAfterItsBusinessUpdateLeavesNoMarkAndSucceedsOnRedelivery() {
        String orderId = placeAndPay("drill-fail-once-after-shipment-" + UUID.randomUUID());

        await(SOON, "one shipment after the redelivery", () -> shipmentsOf(orderId), n -> n == 1);
        assertTrue(ServerLog.text().contains("shipping fails after the shipment insert for order " + orderId),
                "the drill really failed the first delivery");
        assertEquals(2, db.countWhere("processed_event", "aggregate_id", orderId),
                "one mark per event: the failed attempt's mark rolled back with its shipment (R7.6)");
    }

    @Test
    void anOversizedMessageParksBlocksOnlyStrictEventsOfItsAggregateAndIndependentOnesFlow() {
        // A 3000-byte note fits the outbox (65536) but not the JMS limit of this server (2000): permanent.
        String secret = "SECRET-" + UUID.randomUUID();
        Reply big = service.placeOrderRaw("{\"customerId\":\"park-" + UUID.randomUUID() + "\",\"amount\":4,\"note\":\""
                + secret + "n".repeat(3000) + "\"}", null);
        assertEquals(201, big.status(), big.toString());
        assertEquals(200, service.pay(big.orderId(), 1).status());
        String other = placeAndPay("flows-" + UUID.randomUUID());

        StoredEvent parked = await(SOON, "OrderPlaced parked", () -> db.eventsOf(big.orderId()).get(0),
                e -> e.state().equals("PARKED"));
        assertEquals("MessageTooLarge", parked.lastErrorClass());
        assertEquals(1, parked.attempts(), "parked at once, not retried (R4.5)");
        awaitDelivered(other, 2);
        await(SOON, "the other order shipped", () -> shipmentsOf(other), n -> n == 1);

        StoredEvent blocked = db.eventsOf(big.orderId()).get(1);
        assertEquals("PENDING", blocked.state(), "strict OrderPaid waits behind its parked OrderPlaced (R4.6)");
        assertEquals(0, blocked.attempts(), "and is never even claimed");
        assertEquals(0, shipmentsOf(big.orderId()));

        // An independent event type of the same aggregate goes on past the parked event (R4.6, R7.5).
        UUID noted = insertEvent(big.orderId(), 3, "OrderNoted");
        await(SOON, "the independent OrderNoted delivered", () -> db.eventsOf(big.orderId()).get(2),
                e -> e.eventId().equals(noted) && e.state().equals("DELIVERED"));
        assertEquals("PENDING", db.eventsOf(big.orderId()).get(1).state(), "the strict OrderPaid still waits");
        assertNotEquals(0, service.stats().body().getJsonNumber("eventsParked").longValue());
        assertNotEquals(0, service.stats().body().getJsonNumber("eventsBlocked").longValue(),
                "the stats say that strict ordering holds events back");
        // R6.3: the park, the retries and the blocked events were logged by ids; the payload never was.
        assertTrue(ServerLog.text().contains(parked.eventId().toString()), "the park was logged by event id");
        assertFalse(ServerLog.everything().contains(secret), "a payload reached the server's logs or FFDC files");
    }

    @Test
    void aMissingDestinationBacksOffWithoutLosingAnythingAndDrainsOnceRepaired() {
        String customer = "outage-" + UUID.randomUUID();
        // The broker side is broken for OrderPaid only: its destination does not exist.
        ServerOverrides.write("outage.xml", "<server><variable name=\"outbox.jms.destination.OrderPaid\""
                + " value=\"java:app/jms/NoSuchQueue\"/></server>");
        try {
            String orderId = placeAndPay(customer);

            StoredEvent failing = await(SOON, "OrderPaid retried with backoff", () -> db.eventsOf(orderId).get(1),
                    e -> e.attempts() >= 2);
            assertEquals("PENDING", failing.state(), "a transient failure never parks or deletes (R4.4)");
            assertEquals("DestinationNotFound", failing.lastErrorClass());
            assertEquals(0, shipmentsOf(orderId));
        } finally {
            ServerOverrides.delete("outage.xml");
        }
        String orderId = db.ordersOf(customer).get(0).orderId();
        awaitDelivered(orderId, 2);
        await(SOON, "the order shipped after the repair", () -> shipmentsOf(orderId), n -> n == 1);
    }

    /**
     * Issue 16 item 3: OrderNoted is independent on this server, so its versions may arrive out of order (R4.6);
     * the consumer applies each one, never holding one for a gap or skipping one as stale.
     */
    @Test
    void independentVersionsArrivingOutOfOrderAreEachApplied() {
        String orderId = placeAndPay("independent-" + UUID.randomUUID());
        awaitDelivered(orderId, 2);
        UUID v4 = insertEvent(orderId, 4, "OrderNoted");
        await(SOON, "version 4 processed", () -> processed(orderId, 4), n -> n == 1);
        UUID v3 = insertEvent(orderId, 3, "OrderNoted");
        await(SOON, "version 3 processed", () -> processed(orderId, 3), n -> n == 1);
        String log = ServerLog.text();
        assertFalse(log.contains("waiting: " + v4), "an independent version never waits");
        assertFalse(log.contains("conflict: " + v3), "an independent version after a later one is applied");
    }

    @Test
    void cleanupDeletesOldDeliveredRowsAndExpiredInboxMarksButNothingUndelivered() {
        OffsetDateTime old = OffsetDateTime.now(ZoneOffset.UTC).minusDays(30);
        String aggregate = "cleanup-" + UUID.randomUUID();
        // Five delivered rows past the 7-day retention (the server deletes 2 per batch), one old pending row.
        for (long version = 1; version <= 5; version++) {
            db.using(RecordedRow.pending("Old", aggregate, version, "OldEvent").recordedAt(old).dueAt(old)
                    .delivered(old)::insert);
        }
        db.using(RecordedRow.pending("Old", aggregate, 6, "OldEvent").recordedAt(old).dueAt(old).parked()::insert);
        db.execute("INSERT INTO processed_event (consumer, event_id, processed_at, retain_until, duplicates)"
                + " VALUES ('cleanup-test', ?, ?, ?, 0)", UUID.randomUUID(), old, old.plusDays(1));
        String recent = placeAndPay("recent-" + UUID.randomUUID());
        awaitDelivered(recent, 2);

        await(SOON, "old delivered rows deleted", () -> db.countWhere("outbox_event", "aggregate_id", aggregate),
                n -> n == 1);
        assertEquals("PARKED", db.eventsOf(aggregate).get(0).state(), "a parked row is never cleaned up");
        await(SOON, "the expired inbox mark deleted", () -> db.countWhere("processed_event", "consumer", "cleanup-test"),
                n -> n == 0);
        assertEquals(2, db.eventsOf(recent).size(), "rows inside the retention window stay");
    }

    @Test
    void readinessGoesDownNamingTheEventTypeWhosePendingEventsAreTooOld() {
        // An OrderPaid held behind a parked OrderPlaced stays pending; this server allows OrderPaid 3 s (R6.4).
        Reply big = service.placeOrderRaw("{\"customerId\":\"late-" + UUID.randomUUID() + "\",\"amount\":4,\"note\":\""
                + "n".repeat(3000) + "\"}", null);
        assertEquals(200, service.pay(big.orderId(), 1).status());

        Reply ready = await(SOON, "readiness down", () -> service.health("health/ready"), r -> r.status() == 503);
        assertTrue(ready.raw().contains("late.OrderPaid"), "the late event type is named: " + ready.raw());
        assertTrue(ready.raw().contains("outbox-backlog"), ready.raw());
        Reply live = service.health("health/live");
        assertEquals(200, live.status(), "the publisher itself is alive: " + live.raw());
        assertTrue(live.raw().contains("outbox-publisher"), live.raw());
    }

    /** An event written straight into the outbox, as another command of this aggregate would. */
}
