package dev.outbox.it.write;

import dev.outbox.it.support.ExampleService;
import dev.outbox.it.support.ExampleService.Reply;
import dev.outbox.it.support.OutboxDatabase;
import dev.outbox.it.support.OutboxDatabase.StoredEvent;
import dev.outbox.it.support.OutboxDatabase.StoredOrder;
import dev.outbox.it.support.ServerLogOnFailure;
import dev.outbox.it.support.Settings;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.shrinkwrap.api.ShrinkWrap;
import org.jboss.shrinkwrap.api.spec.EnterpriseArchive;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.io.File;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The write side on a real Open Liberty and a real database (R7.1): the business row and its outbox row
 * exist together or not at all. Runs once on H2 and once on PostgreSQL (see itests/pom.xml).
 */
@ExtendWith({ArquillianExtension.class, ServerLogOnFailure.class})
class WriteSideIT {

    private final ExampleService service = ExampleService.fromSystemProperties();
    private final OutboxDatabase db = OutboxDatabase.fromSystemProperties();

    @Deployment(testable = false)
    static EnterpriseArchive exampleEar() {
        return ShrinkWrap.createFromZipFile(EnterpriseArchive.class, new File(Settings.required("it.ear")));
    }

    private static String newCustomer() {
        return "it-" + UUID.randomUUID();
    }

    @Test
    void placingAnOrderCommitsTheOrderAndOneOrderPlacedEventTogether() {
        String customer = newCustomer();
        Reply placed = service.placeOrder(customer, new BigDecimal("12.50"));

        assertEquals(201, placed.status(), "POST /api/orders: " + placed);
        assertEquals(1, placed.version(), "a new order is at version 1");
        List<StoredOrder> orders = db.ordersOf(customer);
        assertEquals(1, orders.size(), "the order row was committed");
        List<StoredEvent> events = db.eventsOf(placed.orderId());
        assertEquals(1, events.size(), "exactly one outbox row for the new order: " + events);
        StoredEvent event = events.get(0);
        assertAll("the OrderPlaced row",
                () -> assertEquals("Order", event.aggregateType()),
                () -> assertEquals(1, event.aggregateVersion()),
                () -> assertEquals("OrderPlaced", event.eventType()),
                () -> assertEquals(1, event.schemaVersion()),
                () -> assertTrue(List.of("PENDING", "DELIVERED").contains(event.state()), event.state()),
                () -> assertEquals(7, event.eventId().version(), "event ids are UUID version 7 (R2.2)"),
                () -> assertTrue(event.payload().contains(customer), "payload carries the customer: " + event.payload()));
    }

    @Test
    void payingMovesTheOrderToVersionTwoAndRecordsOrderPaidAtVersionTwo() {
        Reply placed = service.placeOrder(newCustomer(), new BigDecimal("3"));
        Reply paid = service.pay(placed.orderId(), 1);

        assertEquals(200, paid.status(), "pay: " + paid);
        assertEquals(2, paid.version());
        List<StoredEvent> events = db.eventsOf(placed.orderId());
        assertEquals(List.of("OrderPlaced@1", "OrderPaid@2"),
                events.stream().map(e -> e.eventType() + "@" + e.aggregateVersion()).toList(),
                "the order's events, in version order");
        assertEquals("PAID", service.order(placed.orderId()).body().getString("status"));
    }

    @Test
    void aBusinessUpdateThatFailsAfterTheOutboxInsertLeavesNeitherRow() {
        String customer = newCustomer();
        // The drill writes the outbox row, then makes the order break the table's amount check at commit.
        Reply failed = service.placeOrderRaw("{\"customerId\":\"" + customer + "\",\"amount\":5}",
                "business-fails-after-outbox");

        assertTrue(failed.status() >= 500, "the commit failed: " + failed);
        assertEquals(List.of(), db.ordersOf(customer), "no order row survived the failed commit");
        assertEquals(List.of(), db.eventsMentioning(customer), "no outbox row survived the failed commit");
    }

    @Test
    void aStaleVersionIsRefusedWith409AndRecordsNoEvent() {
        Reply placed = service.placeOrder(newCustomer(), new BigDecimal("7.10"));
        Reply stale = service.pay(placed.orderId(), 5);

        assertEquals(409, stale.status(), "pay with a stale version: " + stale);
        assertEquals("PLACED", db.ordersOf(service.order(placed.orderId()).body().getString("customerId"))
                .get(0).status(), "the order was not changed");
        assertEquals(List.of("OrderPlaced"), db.eventsOf(placed.orderId()).stream().map(StoredEvent::eventType).toList(),
                "no OrderPaid row for a refused payment");
    }

    @Test
    void aDuplicateEventVersionRollsThePaymentBack() {
        Reply placed = service.placeOrder(newCustomer(), new BigDecimal("8"));
        // The drill records OrderPaid at version 1, which OrderPlaced holds: the unique key must refuse it.
        Reply duplicate = service.payRaw(placed.orderId(), "{\"version\":1}", "reuse-event-version");

        assertEquals(409, duplicate.status(), "duplicate event version: " + duplicate);
        assertTrue(duplicate.error().contains("already exists at this aggregate version"), duplicate.error());
        Reply order = service.order(placed.orderId());
        assertEquals("PLACED", order.body().getString("status"), "the payment's conditional update was rolled back");
        assertEquals(1, order.version(), "the order is still at version 1");
        assertEquals(List.of("OrderPlaced@1"), db.eventsOf(placed.orderId()).stream()
                .map(e -> e.eventType() + "@" + e.aggregateVersion()).toList(), "only the original event remains");
    }

    @Test
    void anOversizedPayloadIsRefusedWith400AndTheOrderIsNotCommitted() {
        String customer = newCustomer();
        String note = "x".repeat(70_000);   // over outbox.payload.max-bytes (65536)
        Reply refused = service.placeOrderRaw("{\"customerId\":\"" + customer + "\",\"amount\":5,\"note\":\""
                + note + "\"}", null);

        assertEquals(400, refused.status(), "oversized payload: " + refused.status() + " " + refused.error());
        assertTrue(refused.error().contains("payload") && refused.error().contains("outbox.payload.max-bytes"),
                "the error names the field and the limit: " + refused.error());
        assertEquals(List.of(), db.ordersOf(customer), "the order flushed before the event was rolled back");
        assertEquals(List.of(), db.eventsMentioning(customer), "no outbox row");
    }

    @Test
    void twoConcurrentPaymentsOfOneOrderHaveOneWinnerOne409AndOneOrderPaidRow() throws Exception {
        int racers = 4;
        for (int round = 0; round < 3; round++) {
            Reply placed = service.placeOrder(newCustomer(), new BigDecimal("20"));
            ExecutorService pool = Executors.newFixedThreadPool(racers);
            CountDownLatch start = new CountDownLatch(1);
            List<Future<Reply>> replies = new ArrayList<>();
            for (int i = 0; i < racers; i++) {
                replies.add(pool.submit(() -> {
                    start.await();
                    return service.pay(placed.orderId(), 1);
                }));
            }
            start.countDown();
            List<Integer> statuses = new ArrayList<>();
            for (Future<Reply> reply : replies) {
                statuses.add(reply.get().status());
            }
            pool.shutdown();

            assertEquals(1, statuses.stream().filter(s -> s == 200).count(), "exactly one winner: " + statuses);
            assertEquals(racers - 1, statuses.stream().filter(s -> s == 409).count(), "the others get 409: " + statuses);
            assertEquals(1, db.eventsOf(placed.orderId()).stream().filter(e -> e.eventType().equals("OrderPaid")).count(),
                    "exactly one OrderPaid row");
            assertEquals(2, service.order(placed.orderId()).version());
        }
    }

    @Test
    void badInputGets400NamingTheFieldAndWritesNothing() {
        long ordersBefore = db.count("orders", "");
        long eventsBefore = db.count("outbox_event", "");

        Reply noCustomer = service.placeOrderRaw("{\"amount\":5}", null);
        Reply negative = service.placeOrderRaw("{\"customerId\":\"c\",\"amount\":-5}", null);
        Reply notJson = service.placeOrderRaw("{customerId", null);
        Reply badVersion = service.payRaw("whatever", "{\"version\":0}", null);

        assertAll(
                () -> assertEquals(400, noCustomer.status()),
                () -> assertTrue(noCustomer.error().contains("customerId"), noCustomer.error()),
                () -> assertEquals(400, negative.status()),
                () -> assertTrue(negative.error().contains("amount"), negative.error()),
                () -> assertEquals(400, notJson.status()),
                () -> assertEquals(400, badVersion.status()),
                () -> assertTrue(badVersion.error().contains("version"), badVersion.error()));
        assertEquals(ordersBefore, db.count("orders", ""), "no order written");
        assertEquals(eventsBefore, db.count("outbox_event", ""), "no outbox row written");
    }

    @Test
    void payingAnUnknownOrderIs404() {
        Reply reply = service.pay("no-such-order", 1);
        assertEquals(404, reply.status(), reply.toString());
    }

    @Test
    void statsCountOrdersAndEventsByState() {
        service.placeOrder(newCustomer(), BigDecimal.TEN);
        Reply stats = service.stats();

        assertEquals(200, stats.status(), stats.toString());
        long events = db.count("outbox_event", "");
        // The publisher moves rows between states meanwhile; the sum over the states is stable.
        assertAll("GET /api/stats matches the database",
                () -> assertEquals(db.count("orders", ""), stats.body().getJsonNumber("orders").longValue()),
                () -> assertEquals(events, stats.body().getJsonNumber("eventsPending").longValue()
                        + stats.body().getJsonNumber("eventsDelivered").longValue()
                        + stats.body().getJsonNumber("eventsParked").longValue(), "pending + delivered + parked"),
                () -> assertEquals(db.count("shipment", ""), stats.body().getJsonNumber("shipments").longValue()),
                () -> assertTrue(stats.body().containsKey("duplicatesAbsorbed")));
    }
}
