package dev.outbox.it.kafka;

import dev.outbox.internal.persistence.RecordedRow;
import dev.outbox.it.flow.ReactiveInboxParking;
import dev.outbox.it.support.ConsumerHealth;
import dev.outbox.it.support.ConsumerStallDrill;
import dev.outbox.it.support.ExampleService;
import dev.outbox.it.support.ExampleService.Reply;
import dev.outbox.it.support.KafkaBroker;
import dev.outbox.it.support.KafkaTopic;
import dev.outbox.it.support.LibertyProcess;
import dev.outbox.it.support.MonitoringQueries;
import dev.outbox.it.support.OutboxDatabase;
import dev.outbox.it.support.ServerLog;
import dev.outbox.it.support.Settings;
import dev.outbox.it.support.TracedOrders;
import dev.outbox.it.support.TracedOrders.TracedOrder;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

import java.math.BigDecimal;
import java.nio.file.Path;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Collectors;

import static dev.outbox.it.support.Eventually.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The outbox on Kafka, end to end on a real Liberty server, a real PostgreSQL or MariaDB and a real KRaft broker: the
 * publisher's Kafka transport (R4.7, R9.1), the invoicing consumer behind the inbox's own poll loop
 * (KafkaInbox) and the loyalty consumer behind the Reactive Messaging inbox (R5.1, R5.5, R5.7). The server
 * (outbox-it-kafka, src/test/liberty-kafka) publishes every type to Kafka.
 */
@EnabledIfSystemProperty(named = "it.db", matches = "postgresql|mariadb")
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class KafkaIT {

    private static final Duration SOON = Duration.ofSeconds(60);
    private static final ExampleService service = new ExampleService(Settings.required("it.kafka.base.url"));
    private static final LibertyProcess server = new LibertyProcess(Path.of(Settings.required("it.wlp")),
            System.getProperty("it.kafka.server", "outbox-it-kafka"), service).measured(); // it prints a drain rate
    private static final OutboxDatabase db = new OutboxDatabase(Settings.required("it.kafka.jdbc.url"), "outbox", "outbox");
    private static final KafkaBroker broker = new KafkaBroker();
    /** LoyaltyConsumer.STALL_PREFIX: the example's drill that holds the loyalty consumer for 25 s. */
    private static final String LOYALTY_STALL = "drill-stall-loyalty-";

    @BeforeAll
    static void startServer() throws Exception {
        server.start();
    }

    @AfterAll
    static void stopServer() throws Exception {
        server.deleteOverride("failpoint.xml");
        server.stop();
        server.kill();
    }

    @Test
    @Order(1)
    void everyEventReachesTheKafkaConsumerOnceWithItsPartitionAndOffsetOnTheRow() {
        String customer = "kafka-e2e-" + UUID.randomUUID();
        List<String> orders = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            Reply placed = service.placeOrder(customer, new BigDecimal("10.50"));
            assertEquals(201, placed.status(), placed.toString());
            assertEquals(200, service.pay(placed.orderId(), 1).status());
            orders.add(placed.orderId());
        }
        String mine = "aggregate_id IN (" + quoted(orders) + ")";
        await(SOON, "20 invoice entries, one per event", () -> db.count("invoice_entry", "order_id IN (" + quoted(orders) + ")"),
                n -> n == 20);
        assertEquals(20, db.count("outbox_event", mine + " AND state = 'DELIVERED'"), "every event delivered");
        assertEquals(0, db.count("outbox_event", mine + " AND (broker_partition IS NULL OR broker_offset IS NULL"
                + " OR broker_message_id NOT LIKE 'outbox.Order-%')"), "partition, offset and topic on every row (R4.7)");
        for (String order : orders) {
            List<List<Object>> partitions = db.rows("SELECT DISTINCT broker_partition FROM outbox_event WHERE aggregate_id = ?", order);
            assertEquals(1, partitions.size(), "one aggregate, one partition: the key is the aggregate id (R9.1) for " + order);
        }
        assertEquals(10, db.count("invoice", "order_id IN (" + quoted(orders) + ") AND status = 'SETTLED'"),
                "each order invoiced and settled exactly once");
        assertEquals(20, db.count("processed_event", "consumer = 'invoicing' AND " + mine), "one inbox mark per event");
        // The Reactive Messaging consumer (loyalty, liberty-kafka connector) on the same topic: one award per payment.
        await(SOON, "one loyalty award per paid order", () -> db.count("loyalty_points", "order_id IN (" + quoted(orders)
                + ")"), n -> n == 10);
        await(SOON, "loyalty marked every event", () -> db.count("processed_event", "consumer = 'loyalty' AND " + mine),
                n -> n == 20);
        List<Long> latencies = db.rows("SELECT e.created_at, i.applied_at FROM invoice_entry i JOIN outbox_event e"
                + " ON e.event_id = i.event_id WHERE " + mine.replace("aggregate_id", "e.aggregate_id")).stream()
                .map(r -> Duration.between(OutboxDatabase.instant(r.get(0)), OutboxDatabase.instant(r.get(1))).toMillis())
                .sorted().toList();
        System.out.println("kafka commit-to-consume latency over 20 events: p50 " + ms(latencies, 0.5) + " ms, max "
                + ms(latencies, 1.0) + " ms");
        assertTrue(latencies.get(0) >= 0 && ms(latencies, 1.0) < SOON.toMillis(), "each event applied after it was"
                + " recorded and within a minute, on the database's clock (a time-zone slip shows here): " + latencies);
        // R4.7: the test broker's topics have one replica, which can lose an acknowledged record: the outbox says so.
        await(SOON, "a WARNING naming the single-replica topic outbox.Order",
                () -> ServerLog.messages(server.serverDir()).contains("Kafka topic outbox.Order has 1 replica(s) and min.insync.replicas=1"),
                named -> named);
        // R5.7, issue 42 item 5: the broker keeps records 7 days and this server's consumers may fall 30 days behind
        // (kafka.xml): readiness names the topic, stays UP, and the gauge an alert watches says 1.
        await(SOON, "readiness naming outbox.Order's short retention and single replica", () -> service.health(
                "health/ready").raw(), ready -> ready.contains("SHORT_RETENTION.outbox.Order")
                && ready.contains("retention.ms=604800000") && ready.contains("UNDER_REPLICATED.outbox.Order"));
        assertEquals(200, service.health("health/ready").status(), "a topic at risk does not take the instance out");
        await(SOON, "the gauge outbox_topic_at_risk for outbox.Order's retention", service::metrics, scrape -> scrape
                .lines().anyMatch(line -> line.startsWith("outbox_topic_at_risk{") && line.contains("risk=\"short_retention\"")
                        && line.contains("topic=\"outbox.Order\"")
                        && Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1)) == 1));
        assertEquals(java.util.Set.of(), MonitoringQueries.missingKafkaSeriesFrom(service.metrics()),
                "the Kafka-only series the shipped alerts and dashboard query (monitoring/)");
    }

    /**
     * R6.7 through Kafka: the server runs OpenTelemetry with the logging exporter (itests pom). Each consumer's span
     * for an event, the poll-loop inbox's (invoicing) and the Reactive Messaging inbox's (loyalty), is in the trace
     * of the request that recorded the event, whose context travelled in the record's traceparent header.
     */
    @Test
    @Order(1)
    void eachKafkaConsumersSpanIsInTheTraceOfTheRequestThatRecordedTheEvent() {
        String secret = "TRACE-SECRET-" + UUID.randomUUID();
        TracedOrder order = TracedOrders.placeAndPay(service, "kafka-traced-" + UUID.randomUUID(), secret);
        await(SOON, "both events invoiced", () -> db.count("invoice_entry", "order_id = '" + order.orderId() + "'"),
                n -> n == 2);
        await(SOON, "loyalty marked both events", () -> db.count("processed_event", "consumer = 'loyalty' AND"
                + " aggregate_id = '" + order.orderId() + "'"), n -> n == 2);
        List<OutboxDatabase.StoredEvent> events = db.eventsOf(order.orderId());
        for (String consumer : List.of("invoicing", "loyalty")) {
            for (int i = 0; i < 2; i++) {
                var event = events.get(i);
                String trace = i == 0 ? order.placeTrace() : order.payTrace();
                String span = await(SOON, consumer + "'s span for " + event.eventType(), () -> TracedOrders.spans(
                        ServerLog.messages(server.serverDir()), consumer + " process", event.eventId()),
                        spans -> !spans.isEmpty()).get(0);
                assertTrue(TracedOrders.inTrace(span, trace) && span.contains(" CONSUMER ")
                        && span.contains("outbox.event.type=" + event.eventType()), consumer + " consumed "
                        + event.eventType() + " in the trace of the request that recorded it (" + trace + "): " + span);
            }
        }
        assertTrue(!ServerLog.messages(server.serverDir()).contains(secret), "no payload in a span or log line (R6.3)");
    }

    @Test
    @Order(2)
    void perAggregateOrderHoldsAtTheConsumerForManyAggregatesPublishedConcurrently() throws Exception {
        int aggregates = 24;
        int notes = 8;
        String customer = "kafka-order-" + UUID.randomUUID();
        List<String> orders = Collections.synchronizedList(new ArrayList<>());
        ExecutorService clients = Executors.newFixedThreadPool(6);
        List<Future<?>> work = new ArrayList<>();
        for (int a = 0; a < aggregates; a++) {
            work.add(clients.submit(() -> {
                Reply placed = service.placeOrder(customer, BigDecimal.ONE);
                assertEquals(201, placed.status(), placed.toString());
                orders.add(placed.orderId());
                for (int n = 0; n < notes; n++) {
                    Reply noted = service.note(placed.orderId(), "note " + n);
                    assertEquals(200, noted.status(), noted.toString());
                }
                return null;
            }));
        }
        for (Future<?> done : work) {
            done.get();
        }
        clients.shutdown();
        int versions = 1 + notes;
        String mine = "order_id IN (" + quoted(orders) + ")";
        await(SOON, "every version of every order applied by invoicing", () -> db.count("invoice_entry", mine),
                n -> n == (long) aggregates * versions);
        // Applied in order and complete: each entry saw the version just before its own (R5.7, R9.1).
        List<List<Object>> outOfOrder = db.rows("SELECT order_id, version, previous_version FROM invoice_entry WHERE "
                + mine + " AND NOT ((version = 1 AND previous_version IS NULL) OR previous_version = version - 1)");
        assertEquals(List.of(), outOfOrder, "entries applied out of order or after a gap (order, version, previous)");
        for (String order : orders) {
            assertEquals(versions, db.rows("SELECT DISTINCT version FROM invoice_entry WHERE order_id = ?", order).size(),
                    "every version 1.." + versions + " present once for " + order);
        }
        assertEquals(0, db.count("processed_event", "consumer = 'invoicing' AND aggregate_id IN (" + quoted(orders)
                + ") AND duplicates > 0"), "a healthy run sends nothing twice");
    }

    @Test
    @Order(3)
    void anOversizedRecordParksWhileTheOtherOrdersFlow() {
        Reply big = service.placeOrderRaw("{\"customerId\":\"kafka-big\",\"amount\":3,\"note\":\"" + "x".repeat(5000)
                + "\"}", null);
        assertEquals(201, big.status(), big.toString());
        Reply small = service.placeOrder("kafka-small-" + UUID.randomUUID(), BigDecimal.TEN);
        assertEquals(201, small.status(), small.toString());
        await(SOON, "the oversized OrderPlaced parked", () -> db.eventsOf(big.orderId()).get(0).state(),
                "PARKED"::equals);
        assertEquals("RecordTooLargeException", db.eventsOf(big.orderId()).get(0).lastErrorClass(),
                "parked because the broker's client refused the size (R4.5)");
        await(SOON, "the other order's OrderPlaced delivered and invoiced",
                () -> db.countWhere("invoice", "order_id", small.orderId()), n -> n == 1);
        assertEquals(200, service.pay(big.orderId(), 1).status());
        assertEquals(200, service.pay(small.orderId(), 1).status());
        await(SOON, "the other order settled", () -> db.count("invoice", "order_id = '" + small.orderId()
                + "' AND status = 'SETTLED'"), n -> n == 1);
        assertEquals("PENDING", db.eventsOf(big.orderId()).get(1).state(),
                "the strict OrderPaid behind the parked OrderPlaced waits (R4.6)");
        assertEquals(0, db.countWhere("invoice", "order_id", big.orderId()), "nothing of the parked order reached invoicing");
    }

    /**
     * Issue 16 item 3: an independent type may reach its consumers out of version order by design (R4.6): here
     * OrderNoted v2 waits out a backoff while v3 goes on. Every consumer still applies v2's effect after v3's: the
     * inbox gates only strict types on versions, so v2 is neither held for a gap nor skipped as stale.
     */
    @Test
    @Order(3)
    void anIndependentEventSentAfterALaterVersionIsStillApplied() {
        Reply placed = service.placeOrder("kafka-independent-" + UUID.randomUUID(), BigDecimal.ONE);
        assertEquals(201, placed.status(), placed.toString());
        String order = placed.orderId();
        await(SOON, "v1 invoiced", () -> db.countWhere("invoice_entry", "order_id", order), n -> n == 1);
        // v2's first send failed and waits out its backoff; v3 is recorded and due at once.
        db.using(RecordedRow.pending("Order", order, 2, "OrderNoted").withPayload("{\"note\":\"n\"}").attempts(1)
                .dueAt(OffsetDateTime.now(ZoneOffset.UTC).plusHours(1))::insert);
        db.using(RecordedRow.pending("Order", order, 3, "OrderNoted").withPayload("{\"note\":\"n\"}").attempts(1)::insert);
        await(SOON, "v3 invoiced ahead of v2", () -> db.countWhere("invoice_entry", "order_id", order), n -> n == 2);
        assertEquals(1, db.execute("UPDATE outbox_event SET next_attempt_at = CURRENT_TIMESTAMP(6) WHERE aggregate_id = ?"
                + " AND aggregate_version = 2", order), "v2's backoff ends");
        await(SOON, "v2's effect applied by invoicing after v3's: an independent event is never skipped as stale",
                () -> db.countWhere("invoice_entry", "order_id", order), n -> n == 3);
        await(SOON, "loyalty (Reactive Messaging) marked all three versions",
                () -> db.count("processed_event", "consumer = 'loyalty' AND aggregate_id = '" + order + "'"), n -> n == 3);
        assertEquals(0, db.count("processed_event", "aggregate_id = '" + order + "' AND duplicates > 0"),
                "each version reached each consumer once");
    }

    @Test
    @Order(4)
    void aPoisonEventAtTheConsumerIsParkedOnTheDeadLetterTopicAndTheRestFlows() throws Exception {
        Reply poison = service.placeOrder("drill-poison-invoice-" + UUID.randomUUID(), BigDecimal.ONE);
        assertEquals(201, poison.status(), poison.toString());
        Reply healthy = service.placeOrder("kafka-after-poison-" + UUID.randomUUID(), BigDecimal.ONE);
        assertEquals(201, healthy.status(), healthy.toString());
        await(SOON, "the order after the poison one invoiced", () -> db.countWhere("invoice", "order_id", healthy.orderId()),
                n -> n == 1);
        UUID poisonEvent = db.eventsOf(poison.orderId()).get(0).eventId();
        assertEquals(0, db.countWhere("invoice", "order_id", poison.orderId()), "the poison event changed nothing");
        assertEquals(0, db.count("processed_event", "consumer = 'invoicing' AND event_id = '" + poisonEvent + "'"),
                "no inbox mark for the parked event: a replay applies it once repaired");

        ConsumerRecord<String, String> parked = await(SOON, "the poison event on outbox.Order.dead-letter",
                () -> deadLetter(poisonEvent.toString()), r -> r != null);
        assertEquals(poison.orderId(), parked.key(), "the key is kept");
        assertEquals("IllegalArgumentException", header(parked, "outboxFailure"), "why it was parked");
        assertEquals("invoicing", header(parked, "outboxFailedConsumer"), "which consumer gave up");
        assertEquals("OrderPlaced", header(parked, "outboxEventType"), "the original headers are kept");
    }

    /**
     * Issue 20 item 3: the invoicing consumer (KafkaInbox) applies the records of a poll in one inbox transaction.
     * The records are written straight to the topic with one key, in one producer batch, so they reach the
     * consumer in one poll: ten new orders' OrderPlaced, one of them twice. Their ten marks commit together (on
     * PostgreSQL: one transaction id on all of them) and the repeated record is absorbed inside the batch.
     */
    /**
     * Issue 41, the measured case: records of one order on the topic as the publisher writes them, out of order:
     * v1 OrderPlaced, v3 (strict) and then, well past the gap window (1 s here), v2 OrderPaid. Both Kafka consumers,
     * the poll loop (invoicing) and Reactive Messaging (loyalty), store v3 to wait (its record acknowledged, no thread
     * held) and apply v2 and then v3 when v2 arrives: the invoice is settled and the award made. Before issue 41 both
     * applied v3 after the window and dropped v2 as stale: no award, no settlement.
     */
    @Test
    @Order(3)
    void aStrictVersionArrivingLateIsAppliedAndTheOneThatWaitedForItFollowsOnBothKafkaConsumers() throws Exception {
        String order = UUID.randomUUID().toString(); // the example's order ids are UUIDs (36 characters)
        String customer = "late-" + UUID.randomUUID();
        try (org.apache.kafka.clients.producer.KafkaProducer<String, String> producer =
                     ReactiveInboxParking.producer(broker.bootstrapServers())) {
            producer.send(strictRecord(order, 1, "OrderPlaced", "{\"orderId\":\"" + order + "\",\"customerId\":\""
                    + customer + "\",\"amount\":7}")).get(30, java.util.concurrent.TimeUnit.SECONDS);
            await(SOON, "v1 invoiced", () -> db.countWhere("invoice_entry", "order_id", order), n -> n == 1);
            producer.send(strictRecord(order, 3, "OrderAmended", "{\"orderId\":\"" + order + "\",\"note\":\"n\"}"))
                    .get(30, java.util.concurrent.TimeUnit.SECONDS);
            await(SOON, "v3 stored to wait at both consumers",
                    () -> db.count("inbox_waiting", "aggregate_id = '" + order + "' AND aggregate_version = 3"),
                    n -> n == 2);
            Thread.sleep(2_500); // past the gap window: no timer may apply v3
            assertEquals(1, db.countWhere("invoice_entry", "order_id", order), "v3 not applied ahead of v2");
            producer.send(strictRecord(order, 2, "OrderPaid", "{\"orderId\":\"" + order + "\",\"customerId\":\""
                    + customer + "\",\"amount\":7}", "OrderPlaced=1")).get(30, java.util.concurrent.TimeUnit.SECONDS);
        }
        await(SOON, "v2 and then v3 invoiced", () -> db.countWhere("invoice_entry", "order_id", order), n -> n == 3);
        List<List<Object>> entries = db.rows("SELECT version, previous_version FROM invoice_entry WHERE order_id = ?"
                + " ORDER BY version", order);
        assertEquals(List.of(2L, 1L), numbers(entries.get(1)), "v2 applied on top of v1");
        assertEquals(List.of(3L, 2L), numbers(entries.get(2)), "v3 applied on top of v2, in its turn");
        await(SOON, "loyalty awarded the late payment", () -> db.countWhere("loyalty_points", "order_id", order),
                n -> n == 1);
        await(SOON, "loyalty applied all three", () -> db.count("processed_event", "consumer = 'loyalty' AND"
                + " aggregate_id = '" + order + "'"), n -> n == 3);
        assertEquals(0, db.count("inbox_waiting", "aggregate_id = '" + order + "'"), "nothing left waiting");
    }

    /**
     * Issue 41 (R5.7): v1, then v3; v2 was never recorded. An operator skips v2 at each consumer (audited) and v3 is
     * applied with no further record: by the poll loop's sweep on quiet polls (invoicing) and by the sweep that runs
     * for a Reactive Messaging method between messages (loyalty), which otherwise runs only when a message comes.
     */
    @Test
    @Order(3)
    void anOperatorsSkipReleasesTheWaitingVersionAtBothIdleKafkaConsumers() throws Exception {
        String order = UUID.randomUUID().toString();
        try (org.apache.kafka.clients.producer.KafkaProducer<String, String> producer =
                     ReactiveInboxParking.producer(broker.bootstrapServers())) {
            producer.send(strictRecord(order, 1, "OrderPlaced", "{\"orderId\":\"" + order + "\",\"customerId\":\""
                    + "skip-" + order + "\",\"amount\":7}")).get(30, java.util.concurrent.TimeUnit.SECONDS);
            producer.send(strictRecord(order, 3, "OrderAmended", "{\"orderId\":\"" + order + "\",\"note\":\"n\"}"))
                    .get(30, java.util.concurrent.TimeUnit.SECONDS);
        }
        await(SOON, "v3 stored to wait at both consumers",
                () -> db.count("inbox_waiting", "aggregate_id = '" + order + "' AND aggregate_version = 3"), n -> n == 2);

        for (String consumer : List.of("invoicing", "loyalty")) {
            ExampleService.Reply skipped = service.skipGap(consumer, order, 2, "v2 never recorded");
            assertEquals(200, skipped.status(), consumer + ": " + skipped);
        }
        await(SOON, "v3 applied at both consumers with no further record", () -> db.count("processed_event",
                "aggregate_id = '" + order + "' AND aggregate_version = 3"), n -> n == 2);
        assertEquals(0, db.count("inbox_waiting", "aggregate_id = '" + order + "'"), "nothing left waiting");
    }

    /**
     * Issue 41 (R5.7, the dead-letter route): invoicing parks a poisoned OrderPlaced v1 on the dead-letter topic; the
     * payment v2 then waits for it (stored, acknowledged). The operator repairs the body and re-drives the parked
     * record, with its headers and event id, onto the order topic, as DeadLetters' log line advises: v1 is applied and
     * v2 follows in its turn. Before issue 41 v2 was applied after the gap window and the re-driven v1 was stale.
     */
    @Test
    @Order(4)
    void aVersionReDrivenFromTheDeadLetterTopicClosesTheGapAndTheVersionThatWaitedFollows() throws Exception {
        Reply poison = service.placeOrder("drill-poison-invoice-" + UUID.randomUUID(), BigDecimal.TEN);
        assertEquals(201, poison.status(), poison.toString());
        UUID placed = db.eventsOf(poison.orderId()).get(0).eventId();
        ConsumerRecord<String, String> parked = await(SOON, "v1 parked on outbox.Order.dead-letter",
                () -> deadLetter(placed.toString()), r -> r != null);
        Reply paid = service.pay(poison.orderId(), poison.version());
        assertEquals(200, paid.status(), paid.toString());
        String mine = "consumer = 'invoicing' AND aggregate_id = '" + poison.orderId() + "'";
        await(SOON, "v2 waits at invoicing for the parked v1", () -> db.count("inbox_waiting", mine), n -> n == 1);

        org.apache.kafka.clients.producer.ProducerRecord<String, String> redriven =
                new org.apache.kafka.clients.producer.ProducerRecord<>("outbox.Order", parked.key(),
                        parked.value().replace("drill-poison-invoice-", "repaired-"));
        for (org.apache.kafka.common.header.Header header : parked.headers()) {
            if (!header.key().equals("outboxFailure") && !header.key().equals("outboxFailedConsumer")) {
                redriven.headers().add(header);
            }
        }
        try (org.apache.kafka.clients.producer.KafkaProducer<String, String> producer =
                     ReactiveInboxParking.producer(broker.bootstrapServers())) {
            producer.send(redriven).get(30, java.util.concurrent.TimeUnit.SECONDS);
        }
        await(SOON, "the re-driven v1 and then v2 invoiced", () -> db.countWhere("invoice_entry", "order_id",
                poison.orderId()), n -> n == 2);
        assertEquals(List.of(2L, 1L), numbers(db.rows("SELECT version, previous_version FROM invoice_entry"
                + " WHERE order_id = ? ORDER BY version", poison.orderId()).get(1)), "v2 applied on top of v1");
        assertEquals(0, db.count("inbox_waiting", mine), "nothing left waiting at invoicing");
        assertEquals(1, db.count("invoice", "order_id = '" + poison.orderId() + "' AND status = 'SETTLED'"),
                "the order invoiced and settled once");
    }

    /**
     * Issue 41 item 4 (R5.7), end to end: the receipts consumer receives only OrderPaid and OrderRefunded
     * (outbox.inbox.receives). The recorder gives the payment its previous versions by type, the publisher sends them
     * as a header, and receipts' mark says the payment followed no version of its types (0), not OrderPlaced v1, which
     * it passed over unmarked.
     */
    @Test
    @Order(3)
    void theRecordersPreviousVersionsReachAConsumerOfSomeTypesWhichWaitsForNoneOfTheOthers() {
        Reply placed = service.placeOrder("receipts-" + UUID.randomUUID(), new BigDecimal("12.00"));
        assertEquals(201, placed.status(), placed.toString());
        Reply paid = service.pay(placed.orderId(), placed.version());
        assertEquals(200, paid.status(), paid.toString());
        String order = "aggregate_id = '" + placed.orderId() + "'";
        await(SOON, "receipts marked the payment", () -> db.count("processed_event", "consumer = 'receipts' AND "
                + order), n -> n == 1);
        assertEquals(List.of(List.of(2L, 0L)), db.rows("SELECT aggregate_version, previous_version FROM processed_event"
                + " WHERE consumer = 'receipts' AND " + order).stream().map(KafkaIT::numbers).toList(),
                "v2 followed no version of receipts' own types");
        assertEquals("OrderPlaced=1", db.rows("SELECT previous_versions FROM outbox_event WHERE " + order
                + " AND aggregate_version = 2").get(0).get(0), "what the recorder gave the payment");
        await(SOON, "invoicing, which receives every type, applied both", () -> db.count("processed_event",
                "consumer = 'invoicing' AND " + order), n -> n == 2);
    }

    /**
     * Issue 41 item 4 (R5.7): records of one order written as the publisher writes them, out of order: v4
     * OrderRefunded, then v2 OrderPaid, and only then v1 OrderPlaced and v3 OrderAmended. Receipts (OrderPaid and
     * OrderRefunded only) stores v4 to wait for the payment v2, applies both when v2 comes, and never waits for v1
     * or v3; invoicing and loyalty, which receive every type, wait for v1 and then apply all four in order.
     */
    @Test
    @Order(3)
    void aRefundWaitsAtAConsumerOfPaymentsAndRefundsOnlyForTheOrdersPaymentNotForItsOtherEvents() throws Exception {
        String order = UUID.randomUUID().toString();
        String mine = "aggregate_id = '" + order + "'";
        try (org.apache.kafka.clients.producer.KafkaProducer<String, String> producer =
                     ReactiveInboxParking.producer(broker.bootstrapServers())) {
            producer.send(strictRecord(order, 4, "OrderRefunded", "{\"orderId\":\"" + order + "\"}",
                    "OrderAmended=3,OrderPaid=2,OrderPlaced=1")).get(30, java.util.concurrent.TimeUnit.SECONDS);
            await(SOON, "v4 stored to wait at receipts", () -> db.count("inbox_waiting", "consumer = 'receipts' AND "
                    + mine), n -> n == 1);
            producer.send(strictRecord(order, 2, "OrderPaid", "{\"orderId\":\"" + order + "\",\"customerId\":\"r-"
                    + order + "\",\"amount\":7}", "OrderPlaced=1")).get(30, java.util.concurrent.TimeUnit.SECONDS);
            await(SOON, "receipts applied v2 and then v4, with v1 and v3 still missing", () -> db.count(
                    "processed_event", "consumer = 'receipts' AND " + mine), n -> n == 2);
            assertEquals(0, db.count("inbox_waiting", "consumer = 'receipts' AND " + mine), "nothing waits at receipts");
            assertEquals(0, db.countWhere("invoice_entry", "order_id", order), "invoicing waits for v1");
            assertEquals(2, db.count("inbox_waiting", "consumer = 'invoicing' AND " + mine), "v2 and v4 wait there");
            producer.send(strictRecord(order, 1, "OrderPlaced", "{\"orderId\":\"" + order + "\",\"customerId\":\"r-"
                    + order + "\",\"amount\":7}")).get(30, java.util.concurrent.TimeUnit.SECONDS);
            producer.send(strictRecord(order, 3, "OrderAmended", "{\"orderId\":\"" + order + "\",\"note\":\"n\"}",
                    "OrderPaid=2,OrderPlaced=1")).get(30, java.util.concurrent.TimeUnit.SECONDS);
        }
        await(SOON, "invoicing applied all four in order", () -> db.countWhere("invoice_entry", "order_id", order),
                n -> n == 4);
        List<List<Object>> entries = db.rows("SELECT version, previous_version FROM invoice_entry WHERE order_id = ?"
                + " ORDER BY version", order);
        assertEquals(List.of(4L, 3L), numbers(entries.get(3)), "v4 on top of v3 at invoicing");
        await(SOON, "loyalty applied all four", () -> db.count("processed_event", "consumer = 'loyalty' AND " + mine),
                n -> n == 4);
        assertEquals(2, db.count("processed_event", "consumer = 'receipts' AND " + mine),
                "receipts marked its two types only: v1 and v3 passed over");
        assertEquals(0, db.count("inbox_waiting", mine), "nothing left waiting anywhere");
    }

    private static List<Long> numbers(List<Object> row) {
        return row.stream().map(value -> ((Number) value).longValue()).toList();
    }

    /** A record of the example's order topic as the publisher writes it, of a strict type at a given version. */
    private static org.apache.kafka.clients.producer.ProducerRecord<String, String> strictRecord(String order,
            long version, String eventType, String payload) {
        return ReactiveInboxParking.strictRecord("outbox.Order", order, version, eventType, payload);
    }

    /** The same, with the previous versions by type the recorder would have given it (R5.7). */
    private static org.apache.kafka.clients.producer.ProducerRecord<String, String> strictRecord(String order,
            long version, String eventType, String payload, String previousVersions) {
        org.apache.kafka.clients.producer.ProducerRecord<String, String> record = strictRecord(order, version,
                eventType, payload);
        record.headers().add("outboxPreviousVersions", previousVersions.getBytes(java.nio.charset.StandardCharsets.UTF_8));
        return record;
    }

    @Test
    @Order(3) // before the Order(4) tests, whose bad records keep invoicing retrying for seconds
    void theRecordsOfAPollAreAppliedInOneInboxTransactionAndARepeatWithinItIsAbsorbed() throws Exception {
        List<String> orders = new ArrayList<>();
        List<UUID> events = new ArrayList<>();
        String key = "kafka-batch-" + UUID.randomUUID();
        List<org.apache.kafka.clients.producer.ProducerRecord<String, String>> records = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            orders.add(UUID.randomUUID().toString());
            events.add(UUID.randomUUID());
            records.add(ReactiveInboxParking.outboxRecord("outbox.Order", key, orders.get(i), events.get(i),
                    "OrderPlaced", "{\"amount\":5}", key));
        }
        records.add(records.get(3)); // the same event again, within the poll
        produceInOneBatch(records);

        await(SOON, "ten invoices", () -> db.count("invoice", "order_id IN (" + quoted(orders) + ")"), n -> n == 10);
        String marks = "consumer = 'invoicing' AND event_id IN (" + quoted(events.stream().map(UUID::toString).toList()) + ")";
        await(SOON, "the repeated record absorbed", () -> db.count("processed_event", marks + " AND duplicates = 1"),
                n -> n == 1);
        assertEquals(10, db.count("invoice_entry", "order_id IN (" + quoted(orders) + ")"), "each event applied once");
        assertEquals(10, db.count("processed_event", marks), "one mark per event");
        if ("postgresql".equals(System.getProperty("it.db"))) {
            long transactions = (Long) db.rows("SELECT COUNT(DISTINCT CAST(CAST(xmin AS TEXT) AS BIGINT)) FROM"
                    + " processed_event WHERE " + marks).get(0).get(0);
            assertEquals(1, transactions, "the ten marks of one poll committed in one transaction");
        }
    }

    /**
     * Issue 45 item 6: an event type opted into CloudEvents (outbox.cloudevents.enabled.OrderPaid, set while the server
     * runs) reaches a consumer the outbox did not write: the CloudEvents SDK's own deserializer, in a plain Kafka
     * consumer, reads the record as a CloudEvent whose id is the event id and whose partitionkey and aggregateversion
     * are the aggregate and its version; a type that did not opt in goes without ce_ headers. The same record is still the
     * outbox's: invoicing applied it once, and a copy of it sent again is absorbed by the inbox as a duplicate.
     */
    @Test
    @Order(3)
    void anOrderPaidOptedIntoCloudEventsIsReadByTheCloudEventsSdkAndItsRepeatIsAbsorbedByTheInbox() throws Exception {
        server.writeOverride("cloudevents.xml", "<server><variable name=\"outbox.cloudevents.enabled.OrderPaid\""
                + " value=\"true\"/><variable name=\"outbox.cloudevents.source\" value=\"/orders\"/></server>");
        try {
            // The server reads its configuration again within a second or two; an order paid before that goes plain.
            String order = await(SOON, "an OrderPaid sent as a CloudEvent", () -> {
                Reply placed = service.placeOrder("kafka-cloudevents-" + UUID.randomUUID(), new BigDecimal("12.50"));
                assertEquals(200, service.pay(placed.orderId(), 1).status());
                return placed.orderId();
            }, id -> !cloudEvents(id).isEmpty());
            List<io.cloudevents.CloudEvent> read = cloudEvents(order);
            assertEquals(1, read.size(), "one OrderPaid of " + order + " read as a CloudEvent: " + read);
            io.cloudevents.CloudEvent paid = read.get(0);
            String eventId = db.rows("SELECT event_id FROM outbox_event WHERE aggregate_id = ? AND event_type ="
                    + " 'OrderPaid'", order).get(0).get(0).toString();
            assertEquals(eventId, paid.getId(), "ce_id is the outbox's event id");
            assertEquals("OrderPaid", paid.getType());
            assertEquals("/orders", paid.getSource().toString());
            assertEquals("1.0", paid.getSpecVersion().toString());
            assertEquals(order, paid.getExtension("partitionkey"), "the aggregate, the record's key");
            assertEquals("2", String.valueOf(paid.getExtension("aggregateversion")), "the aggregate's version");
            assertEquals("application/json", paid.getDataContentType());
            assertTrue(new String(paid.getData().toBytes(), java.nio.charset.StandardCharsets.UTF_8).startsWith("{"),
                    "the data is the payload JSON");
            List<ConsumerRecord<String, String>> mine = KafkaTopic.records(broker.bootstrapServers(), "outbox.Order",
                    Duration.ofSeconds(2)).stream().filter(r -> order.equals(r.key())).toList();
            ConsumerRecord<String, String> placed = mine.stream()
                    .filter(r -> "OrderPlaced".equals(KafkaTopic.header(r, "outboxEventType"))).findFirst().orElseThrow();
            assertNull(KafkaTopic.header(placed, "ce_id"), "OrderPlaced did not opt in: no CloudEvents headers");

            String mark = "consumer = 'invoicing' AND event_id = '" + eventId + "'";
            await(SOON, "invoicing applied the CloudEvent OrderPaid", () -> db.count("processed_event", mark), n -> n == 1);
            ConsumerRecord<String, String> record = mine.stream()
                    .filter(r -> KafkaTopic.header(r, "ce_id") != null).findFirst().orElseThrow();
            org.apache.kafka.clients.producer.ProducerRecord<String, String> again =
                    new org.apache.kafka.clients.producer.ProducerRecord<>("outbox.Order", null, record.key(),
                            record.value(), record.headers());
            produceInOneBatch(List.of(again));
            await(SOON, "the repeated CloudEvent absorbed by invoicing's inbox",
                    () -> db.count("processed_event", mark + " AND duplicates = 1"), n -> n == 1);
            assertEquals(1, db.count("invoice", "order_id = '" + order + "' AND status = 'SETTLED'"),
                    "the payment applied once");
        } finally {
            server.deleteOverride("cloudevents.xml");
        }
    }

    /**
     * The records of an order that the CloudEvents SDK's deserializer reads as CloudEvents, in a consumer of its own:
     * records without ce_ headers (the outbox's plain ones) are passed over, as a CloudEvents consumer of a shared
     * topic must.
     */
    private static List<io.cloudevents.CloudEvent> cloudEvents(String order) {
        java.util.Properties properties = new java.util.Properties();
        properties.put(org.apache.kafka.clients.consumer.ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers());
        properties.put(org.apache.kafka.clients.consumer.ConsumerConfig.GROUP_ID_CONFIG, "cloudevents-" + UUID.randomUUID());
        properties.put(org.apache.kafka.clients.consumer.ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        io.cloudevents.kafka.CloudEventDeserializer sdk = new io.cloudevents.kafka.CloudEventDeserializer();
        org.apache.kafka.common.serialization.Deserializer<io.cloudevents.CloudEvent> onlyCloudEvents =
                new org.apache.kafka.common.serialization.Deserializer<>() {
                    @Override
                    public io.cloudevents.CloudEvent deserialize(String topic, byte[] data) {
                        throw new UnsupportedOperationException("needs the headers");
                    }

                    @Override
                    public io.cloudevents.CloudEvent deserialize(String topic,
                            org.apache.kafka.common.header.Headers headers, byte[] data) {
                        return headers.lastHeader("ce_specversion") == null ? null : sdk.deserialize(topic, headers, data);
                    }
                };
        List<io.cloudevents.CloudEvent> events = new ArrayList<>();
        try (org.apache.kafka.clients.consumer.KafkaConsumer<String, io.cloudevents.CloudEvent> consumer =
                     new org.apache.kafka.clients.consumer.KafkaConsumer<>(properties,
                             new org.apache.kafka.common.serialization.StringDeserializer(), onlyCloudEvents)) {
            consumer.subscribe(List.of("outbox.Order"));
            long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
            boolean assigned = false;
            while (System.nanoTime() < deadline) {
                var records = consumer.poll(Duration.ofSeconds(2));
                assigned |= !consumer.assignment().isEmpty();
                records.forEach(r -> {
                    if (order.equals(r.key()) && r.value() != null) {
                        events.add(r.value());
                    }
                });
                if (assigned && records.isEmpty()) {
                    break;
                }
            }
        }
        return events;
    }

    /**
     * Issue 20 item 3 when a batch fails: a record whose change throws on every attempt (an OrderPaid for an order
     * invoicing never saw) sits among nine good ones in one poll. The batch rolls back whole and its records go
     * again one by one: the poison record alone is parked, each good one is applied exactly once.
     */
    @Test
    @Order(3)
    void aPoisonRecordInABatchIsParkedAloneAndEveryOtherRecordOfTheBatchIsAppliedOnce() throws Exception {
        List<String> orders = new ArrayList<>();
        List<UUID> events = new ArrayList<>();
        String key = "kafka-batch-poison-" + UUID.randomUUID();
        List<org.apache.kafka.clients.producer.ProducerRecord<String, String>> records = new ArrayList<>();
        UUID poison = UUID.randomUUID();
        for (int i = 0; i < 9; i++) {
            orders.add(UUID.randomUUID().toString());
            events.add(UUID.randomUUID());
            records.add(ReactiveInboxParking.outboxRecord("outbox.Order", key, orders.get(i), events.get(i),
                    "OrderPlaced", "{\"amount\":5}", key));
            if (i == 4) {
                records.add(ReactiveInboxParking.outboxRecord("outbox.Order", key, UUID.randomUUID().toString(),
                        poison, "OrderPaid", "{\"amount\":5}", key)); // an order invoicing never saw
            }
        }
        List<org.apache.kafka.clients.producer.RecordMetadata> written = produceInOneBatch(records);
        org.apache.kafka.clients.producer.RecordMetadata poisonAt = written.get(5);

        ConsumerRecord<String, String> parked = await(SOON, "the poison record on outbox.Order.dead-letter, parked by"
                + " invoicing", () -> KafkaTopic.records(broker.bootstrapServers(), "outbox.Order.dead-letter",
                Duration.ofSeconds(2)).stream().filter(r -> poison.toString().equals(header(r, "outboxEventId"))
                && "invoicing".equals(header(r, "outboxFailedConsumer"))).findFirst().orElse(null), r -> r != null);
        assertEquals("IllegalStateException", header(parked, "outboxFailure"), "why it was parked");
        await(SOON, "the nine good orders invoiced", () -> db.count("invoice", "order_id IN (" + quoted(orders) + ")"),
                n -> n == 9);
        assertEquals(9, db.count("invoice_entry", "order_id IN (" + quoted(orders) + ")"),
                "each good record applied once, though its batch rolled back");
        assertEquals(0, db.count("processed_event", "consumer = 'invoicing' AND event_id = '" + poison + "'"),
                "no inbox mark for the parked record");
        assertEquals(1, KafkaTopic.records(broker.bootstrapServers(), "outbox.Order.dead-letter", Duration.ofSeconds(2))
                .stream().filter(r -> key.equals(r.key()) && "invoicing".equals(header(r, "outboxFailedConsumer")))
                .count(), "only the poison record of the batch parked by invoicing");
        // The batch that held the poison record was tried together first, and rolled back.
        java.util.regex.Matcher rolledBack = java.util.regex.Pattern.compile("consumer invoicing: a batch of \\d+ \\("
                + java.util.regex.Pattern.quote(poisonAt.topic() + "-" + poisonAt.partition()) + "@(\\d+) to "
                + java.util.regex.Pattern.quote(poisonAt.topic() + "-" + poisonAt.partition())
                + "@(\\d+)\\) rolled back \\(java.lang.IllegalStateException\\)")
                .matcher(ServerLog.messages(server.serverDir()));
        boolean tried = false;
        while (rolledBack.find()) {
            tried |= Long.parseLong(rolledBack.group(1)) <= poisonAt.offset()
                    && poisonAt.offset() <= Long.parseLong(rolledBack.group(2));
        }
        assertTrue(tried, "a batch holding the poison record (offset " + poisonAt.offset() + ") was tried together"
                + " first and rolled back");
    }

    /** Writes the records in one producer batch (one key: one partition), so a consumer reads them in one poll. */
    private static List<org.apache.kafka.clients.producer.RecordMetadata> produceInOneBatch(
            List<org.apache.kafka.clients.producer.ProducerRecord<String, String>> records) throws Exception {
        java.util.Properties properties = new java.util.Properties();
        properties.put(org.apache.kafka.clients.producer.ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers());
        properties.put(org.apache.kafka.clients.producer.ProducerConfig.ACKS_CONFIG, "all");
        properties.put(org.apache.kafka.clients.producer.ProducerConfig.LINGER_MS_CONFIG, "5000");
        properties.put(org.apache.kafka.clients.producer.ProducerConfig.BATCH_SIZE_CONFIG, "1048576");
        try (org.apache.kafka.clients.producer.KafkaProducer<String, String> producer =
                     new org.apache.kafka.clients.producer.KafkaProducer<>(properties,
                             new org.apache.kafka.common.serialization.StringSerializer(),
                             new org.apache.kafka.common.serialization.StringSerializer())) {
            List<java.util.concurrent.Future<org.apache.kafka.clients.producer.RecordMetadata>> sent = new ArrayList<>();
            records.forEach(record -> sent.add(producer.send(record)));
            producer.flush();
            List<org.apache.kafka.clients.producer.RecordMetadata> written = new ArrayList<>();
            for (java.util.concurrent.Future<org.apache.kafka.clients.producer.RecordMetadata> future : sent) {
                written.add(future.get(30, java.util.concurrent.TimeUnit.SECONDS));
            }
            return written;
        }
    }

    /** Issue 16 item 8 on Liberty (liberty-kafka); WildFlyReactiveInboxIT makes the same check on smallrye-kafka. */
    @Test
    @Order(4)
    void theReactiveMessagingConsumerParksARecordWithItsOwnKeyAndHeaders() throws Exception {
        ReactiveInboxParking.parksWithTheRecordsOwnKeyAndHeaders(broker.bootstrapServers(), "outbox.Order", db);
    }

    /**
     * Issue 19 item 3 with a consumer that really stops finishing records: the loyalty drill holds one paid order
     * for 25 s while more wait behind it. Liveness must go DOWN naming loyalty (and only loyalty) within the stall
     * window (10 s here) and a few reads of its lag, and come back UP once it has caught up, with nothing lost.
     */
    @Test
    @Order(5)
    void aConsumerThatStopsFinishingRecordsTurnsLivenessDownNamingItAndUpWhenItCatchesUp() {
        ConsumerStallDrill.stallsAndRecovers(service, "loyalty", () -> {
            List<String> orders = new ArrayList<>();
            orders.add(placeAndPay(LOYALTY_STALL + UUID.randomUUID()));
            for (int i = 0; i < 3; i++) {
                orders.add(placeAndPay("after-stall-" + UUID.randomUUID()));
            }
            return () -> db.count("loyalty_points", "order_id IN (" + quoted(orders) + ")") == 4;
        });
    }

    @Test
    @Order(6)
    void theBrokerStoppedMidRunAndRestartedLosesNothing() throws Exception {
        String customer = "kafka-outage-" + UUID.randomUUID();
        List<String> orders = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            orders.add(placeAndPay(customer));
        }
        broker.stop();
        try {
            // Committed while the broker is away: the outbox keeps them (R1.1); sends fail and back off (R4.4).
            for (int i = 0; i < 10; i++) {
                orders.add(placeAndPay(customer));
            }
            await(SOON, "sends failing while the broker is away", () -> db.count("outbox_event",
                    "aggregate_id IN (" + quoted(orders) + ") AND state = 'PENDING' AND last_error_class IS NOT NULL"),
                    n -> n > 0);
        } finally {
            broker.start();
        }
        for (int i = 0; i < 10; i++) {
            orders.add(placeAndPay(customer));
        }
        String mine = "aggregate_id IN (" + quoted(orders) + ")";
        await(Duration.ofSeconds(120), "all 60 events delivered after the restart",
                () -> db.count("outbox_event", mine + " AND state = 'DELIVERED'"), n -> n == 60);
        await(SOON, "all 30 orders settled by invoicing", () -> db.count("invoice", "order_id IN (" + quoted(orders)
                + ") AND status = 'SETTLED'"), n -> n == 30);
        assertEquals(0, db.count("outbox_event", mine + " AND state = 'PARKED'"), "an outage parks nothing");
        assertEquals(60, db.count("invoice_entry", "order_id IN (" + quoted(orders) + ")"),
                "each event applied exactly once");
        long retried = db.count("outbox_event", mine + " AND attempts > 1");
        long duplicates = db.rows("SELECT COALESCE(SUM(duplicates), 0) FROM processed_event WHERE consumer = 'invoicing' AND "
                + mine).stream().mapToLong(r -> ((Number) r.get(0)).longValue()).sum();
        System.out.println("kafka outage: " + retried + " of 60 events needed more than one attempt, duplicates absorbed "
                + duplicates);
    }

    /**
     * Issue 19 item 3, right after the outage of the test before (the order of this class is its scenario): a consumer
     * that stopped must not look like a quiet one. KafkaInbox (invoicing) reconnects by itself; Liberty's Reactive
     * Messaging channel (loyalty) may have stopped for good (CWMRX1002E): then liveness must say so, naming it,
     * within the stall window (10 s here, kafka.xml) and a few reads of its lag.
     */
    @Test
    @Order(7)
    void afterABrokerOutageEachKafkaConsumerResumesOrLivenessNamesIt() {
        String customer = "kafka-after-outage-" + UUID.randomUUID();
        List<String> orders = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            orders.add(placeAndPay(customer));
        }
        String paid = "order_id IN (" + quoted(orders) + ")";
        // KafkaInbox reconnects by itself: its effects are in and its group's lag is read as zero again.
        await(SOON, "invoicing settled the five orders and has nothing waiting", () ->
                db.count("invoice", paid + " AND status = 'SETTLED'") == 5 ? ConsumerHealth.read(service) : null,
                h -> h != null && h.waiting("invoicing") == 0);
        ConsumerHealth.Outcome loyalty = ConsumerHealth.resumesOrIsNamedStalled(service, "loyalty",
                () -> db.count("loyalty_points", paid) == 5, Duration.ofSeconds(60));
        if (!loyalty.resumed()) {
            // Named: only because Liberty's channel really stopped, never for a slow reconnect.
            assertTrue(ServerLog.messages(server.serverDir()).contains("CWMRX1002E"), "loyalty was named stalled, but its channel never stopped");
            assertTrue(db.count("loyalty_points", paid) < 5, "named stalled, yet it applied every order");
        }
        System.out.println("kafka outage, then: invoicing resumed; loyalty (Reactive Messaging) " + loyalty);
        String scrape = service.metrics();
        assertTrue(scrape.lines().anyMatch(l -> l.startsWith("outbox_inbox_waiting{") && l.contains("consumer=\"invoicing\"")),
                "the lag gauge of invoicing is scraped: " + scrape.lines().filter(l -> l.contains("waiting")).toList());
    }

    @Test
    @Order(8)
    void aBacklogDrainsToKafka() throws Exception {
        int backlog = Integer.parseInt(Settings.required("it.kafka.backlog"));
        server.stop();
        String tag = "bench-" + UUID.randomUUID();
        // Rows as the recorder writes them, for an aggregate type no consumer reads (topic outbox.Bench), in one
        // transaction through the fixture every test writes rows with, so the same load runs on every database.
        String pad = "x".repeat(150);
        db.using(c -> {
            c.setAutoCommit(false);
            for (int g = 0; g < backlog; g++) {
                RecordedRow.pending("Bench", tag + "-" + (g % 1000), g / 1000 + 1, "BenchNoted")
                        .withPayload("{\"n\":" + g + ",\"pad\":\"" + pad + "\"}").insert(c);
            }
            c.commit();
            return null;
        });
        server.start();
        String mine = "aggregate_type = 'Bench' AND aggregate_id LIKE '" + tag + "-%'";
        await(Duration.ofSeconds(600), backlog + " backlog events delivered",
                () -> db.count("outbox_event", mine + " AND state = 'DELIVERED'"), n -> n == backlog);
        List<Object> span = db.rows("SELECT MIN(delivered_at), MAX(delivered_at) FROM outbox_event WHERE " + mine).get(0);
        double seconds = Duration.between(OutboxDatabase.instant(span.get(0)), OutboxDatabase.instant(span.get(1)))
                .toNanos() / 1e9;
        assertTrue(seconds >= 0 && seconds < 600, "the drain's first and last confirm, read back: " + span);
        System.out.printf("kafka drain: %d events in %.2f s (first to last delivery) = %.0f events/s%n", backlog,
                seconds, backlog / Math.max(seconds, 0.001));
        assertEquals(0, db.count("outbox_event", mine + " AND (broker_offset IS NULL OR state <> 'DELIVERED')"));
    }

    private static String placeAndPay(String customer) {
        Reply placed = service.placeOrder(customer, BigDecimal.ONE);
        assertEquals(201, placed.status(), placed.toString());
        Reply paid = service.pay(placed.orderId(), 1);
        assertEquals(200, paid.status(), paid.toString());
        return placed.orderId();
    }

    private static ConsumerRecord<String, String> deadLetter(String eventId) {
        return KafkaTopic.records(broker.bootstrapServers(), "outbox.Order.dead-letter", Duration.ofSeconds(2)).stream()
                .filter(r -> eventId.equals(KafkaTopic.header(r, "outboxEventId"))).findFirst().orElse(null);
    }

    private static String header(ConsumerRecord<String, String> record, String name) {
        return KafkaTopic.header(record, name);
    }

    private static String quoted(List<String> ids) {
        return ids.stream().map(id -> "'" + id + "'").collect(Collectors.joining(", "));
    }

    private static long ms(List<Long> sorted, double quantile) {
        if (sorted.isEmpty()) {
            return -1;
        }
        return sorted.get((int) Math.min(sorted.size() - 1, Math.round(quantile * (sorted.size() - 1))));
    }
}
