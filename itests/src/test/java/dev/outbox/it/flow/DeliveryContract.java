package dev.outbox.it.flow;

import dev.outbox.internal.persistence.RecordedRow;
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
    /**
     * Issue 41 (R5.7): a strict version that reaches the MDB ahead of its turn waits in the consumer's database,
     * however long past the gap window (1 s on Liberty, 2 s on WildFly), its message acknowledged; when the missing version
     * arrives, late, both are applied, the missing one first. Before issue 41 the early one was applied after the
     * window and the late one dropped as stale.
     */
    @Test
    void aStrictVersionAheadOfItsTurnWaitsDurablyAndIsAppliedAfterTheLateMissingOne() throws InterruptedException {
        String orderId = placeAndPay("late-" + UUID.randomUUID());
        awaitDelivered(orderId, 2);
        await(SOON, "shipped", () -> shipmentsOf(orderId), n -> n == 1);

        UUID v4 = insertEvent(orderId, 4, "OrderAmended", "OrderAmended=3,OrderPaid=2,OrderPlaced=1");
        await(SOON, "version 4 stored to wait for version 3", () -> waiting(orderId, 4), n -> n == 1);
        // R5.7: the publisher sent the previous versions as a JMS property and the MDB inbox kept it with the stored
        // event (so its turn message carries it too); reading it into the gate is PartialConsumerTest's
        assertTrue(String.valueOf(db.rows("SELECT properties FROM inbox_waiting WHERE aggregate_id = ?", orderId)
                .get(0).get(0)).contains("outboxPreviousVersions=OrderAmended=3,OrderPaid=2,OrderPlaced=1"),
                "the stored event's properties: " + db.rows("SELECT properties FROM inbox_waiting WHERE"
                        + " aggregate_id = ?", orderId));
        Thread.sleep(2_500); // past the gap window on both servers: no timer may apply it
        assertEquals(1, waiting(orderId, 4), "version 4 still waits");
        assertEquals(0, processed(orderId, 4), "and was not applied ahead of version 3");
        assertTrue(serverLog().contains("OUTBOX-1303 waiting: " + v4), "the wait was logged by its message id and the event id");
        assertEquals("DELIVERED", db.eventsOf(orderId).get(2).state(), "its message was acknowledged, not held");

        UUID v3 = insertEvent(orderId, 3, "OrderAmended");
        await(SOON, "version 3 applied, then version 4", () -> processed(orderId, 3) + processed(orderId, 4),
                n -> n == 2);
        assertEquals(0, waiting(orderId, 4), "nothing left waiting");
        assertTrue(serverLog().contains("applied " + v4 + " OrderAmended of Order/" + orderId
                + " at version 4 in its turn, after " + v3), "version 4 applied after version 3, in its turn");
    }

    /**
     * Issue 41 (R5.7): an MDB runs only when a message comes, yet the version that waited goes on as soon as an
     * operator skips the missing one, with no further message for the consumer (the inbox sends it a nudge of its
     * own); before, it waited for the consumer's next message, however long that took.
     */
    @Test
    void anOperatorsSkipReleasesTheWaitingVersionAtAnIdleMdb() {
        String orderId = placeAndPay("idle-" + UUID.randomUUID());
        awaitDelivered(orderId, 2);
        await(SOON, "shipped", () -> shipmentsOf(orderId), n -> n == 1);
        insertEvent(orderId, 4, "OrderAmended");
        await(SOON, "version 4 stored to wait for version 3", () -> waiting(orderId, 4), n -> n == 1);

        Reply skipped = service.skipGap("shipping", orderId, 3, "version 3 was never recorded");
        assertEquals(200, skipped.status(), skipped.toString());

        await(SOON, "version 4 applied with no further message to shipping", () -> processed(orderId, 4), n -> n == 1);
        assertEquals(0, waiting(orderId, 4), "nothing left waiting");
        assertTrue(serverLog().contains("OUTBOX-3202 consumer shipping: asked to apply the waiting events whose turn came"),
                "released by the inbox's own nudge, not by some other message");
    }

    /**
     * Issue 41, R7.7: the producer's database restored from a backup taken before version 2, and a new command records
     * a new version 2 under a new event id. The consumer applied the old version 2: the new one is a fork, parked
     * at the consumer naming both ids, never absorbed as a duplicate and never applied.
     */
    @Test
    void aNewEventAtAVersionTheConsumerAlreadyAppliedIsParkedAsAConflictNamingBothIds() {
        String orderId = placeAndPay("fork-" + UUID.randomUUID());
        awaitDelivered(orderId, 2);
        await(SOON, "shipped", () -> shipmentsOf(orderId), n -> n == 1);
        UUID applied = db.eventsOf(orderId).get(1).eventId();

        // The restore: version 2 is gone from the producer's outbox; a new command records another version 2.
        db.execute("DELETE FROM outbox_event WHERE event_id = ?", applied);
        UUID fork = insertEvent(orderId, 2, "OrderPaid");
        await(SOON, "the fork parked at the consumer", () -> db.count("inbox_conflict",
                "event_id = '" + fork + "' AND applied_event_id = '" + applied + "'"), n -> n == 1);
        assertEquals(1, shipmentsOf(orderId), "the fork's change never ran");
        assertEquals(0, db.count("processed_event", "event_id = '" + fork + "'"), "nor was it absorbed as processed");
        assertTrue(serverLog().contains("OUTBOX-1304 conflict: " + fork), "reported by its message id and the event id");
    }

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

    /** A row straight into the outbox, as a command would record it, due now. */
    protected UUID insertEvent(String orderId, long version, String eventType) {
        return insertEvent(orderId, version, eventType, null);
    }

    /** The same, with the previous versions by type the recorder would have given it (R5.7). */
    protected UUID insertEvent(String orderId, long version, String eventType, String previousVersions) {
        OffsetDateTime now = OffsetDateTime.now(ZoneOffset.UTC);
        return db.using(RecordedRow.pending("Order", orderId, version, eventType).recordedAt(now).dueAt(now)
                .withPreviousVersions(previousVersions)::insert);
    }

    /** Inbox marks of one version of the order: processed (applied, or recorded as skipped). */
    protected long processed(String orderId, long version) {
        return db.count("processed_event", "aggregate_id = '" + orderId + "' AND aggregate_version = " + version);
    }

    /** Events of one version of the order stored at a consumer until the versions before them arrive. */
    protected long waiting(String orderId, long version) {
        return db.count("inbox_waiting", "aggregate_id = '" + orderId + "' AND aggregate_version = " + version);
    }
}
