package dev.outbox.it.wildfly;

import dev.outbox.it.flow.ReactiveInboxParking;
import dev.outbox.it.support.ConsumerHealth;
import dev.outbox.it.support.ConsumerStallDrill;
import dev.outbox.it.support.ExampleService;
import dev.outbox.it.support.KafkaBroker;
import dev.outbox.it.support.OutboxDatabase;
import dev.outbox.it.support.Settings;
import dev.outbox.it.support.TracedOrders;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.shrinkwrap.api.ShrinkWrap;
import org.jboss.shrinkwrap.api.spec.EnterpriseArchive;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.ExtendWith;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import static dev.outbox.it.support.Eventually.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The loyalty consumer (MicroProfile Reactive Messaging, SmallRye's smallrye-kafka connector) on WildFly. Issue 16
 * item 8: it hands the consumer an IncomingKafkaRecord rather than a ConsumerRecord; a parked record must keep its
 * topic, key and headers all the same. Issue 19 item 3: after a broker outage it resumes, or liveness names it
 * stalled. The channel reads a topic of its own here (arquillian.xml), so no other consumer sees these records.
 * R6.7: both Kafka consumers, loyalty and invoicing (KafkaInbox, on outbox.Order), process a traced record in a
 * span of the trace it was recorded in.
 */
@ExtendWith(ArquillianExtension.class)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class WildFlyReactiveInboxIT {

    private static final String TOPIC = "wf-rm.Order";
    /** The receipts consumer's topic here (example.receipts.topic, arquillian.xml): no other consumer reads it. */
    private static final String RECEIPTS_TOPIC = "wf-receipts.Order";
    /** WildFly serves health on its management interface (9990 + the port offset of 100). */
    private final ExampleService management = new ExampleService("http://127.0.0.1:10090");
    private final OutboxDatabase db = OutboxDatabase.fromSystemProperties();

    @Deployment(testable = false)
    static EnterpriseArchive exampleEar() {
        return ShrinkWrap.createFromZipFile(EnterpriseArchive.class, new File(Settings.required("it.ear")));
    }

    @Test
    @Order(1)
    void theReactiveMessagingConsumerParksARecordWithItsOwnKeyAndHeaders() throws Exception {
        ReactiveInboxParking.parksWithTheRecordsOwnKeyAndHeaders(Settings.required("it.kafka.bootstrap"), TOPIC, db);
    }

    /**
     * R6.7 on WildFly's Kafka consumers: a record carrying an outbox event recorded in a traced request (its context
     * in the W3C traceparent header, as the publisher sends it) is processed by the loyalty consumer in a span of
     * that trace. WildFly runs OpenTelemetry with the logging exporter here (arquillian.xml), writing to server.log.
     */
    @Test
    @Order(1)
    void theReactiveMessagingConsumersSpanIsInTheTraceTheEventWasRecordedIn() throws Exception {
        String orderId = UUID.randomUUID().toString();
        UUID eventId = UUID.randomUUID();
        assertProcessedInTheRecordingTrace(ReactiveInboxParking.outboxRecord(TOPIC, orderId, eventId, "{\"amount\":5}",
                "traced"), "loyalty", "loyalty_points", orderId, eventId);
    }

    /**
     * R6.7 on WildFly's poll-loop inbox (KafkaInbox): the invoicing consumer reads outbox.Order here; an OrderPlaced
     * recorded in a traced request (its context in traceparent, as the publisher sends it) is invoiced in a span of
     * that trace.
     */
    @Test
    @Order(1)
    void theKafkaInboxConsumersSpanIsInTheTraceTheEventWasRecordedIn() throws Exception {
        String orderId = UUID.randomUUID().toString();
        UUID eventId = UUID.randomUUID();
        var record = new ProducerRecord<>("outbox.Order", orderId, "{\"amount\":5}");
        Map.of("outboxEventId", eventId.toString(), "outboxEventType", "OrderPlaced", "outboxAggregateType", "Order",
                        "outboxAggregateId", orderId, "outboxAggregateVersion", "1", "outboxSchemaVersion", "1",
                        "outboxOrdering", "strict")
                .forEach((name, value) -> record.headers().add(name, value.getBytes(StandardCharsets.UTF_8)));
        assertProcessedInTheRecordingTrace(record, "invoicing", "invoice_entry", orderId, eventId);
    }

    /**
     * Sends {@code record} with the traceparent of a new trace, waits until {@code consumer} applied it (a row for
     * the order in {@code table}), and finds its CONSUMER span for the event, in that trace, in server.log.
     */
    private void assertProcessedInTheRecordingTrace(ProducerRecord<String, String> record, String consumer,
                                                    String table, String orderId, UUID eventId) throws Exception {
        String traceId = UUID.randomUUID().toString().replace("-", "");
        record.headers().add("traceparent", ("00-" + traceId + "-00f067aa0ba902b7-01").getBytes(StandardCharsets.UTF_8));
        try (KafkaProducer<String, String> producer = ReactiveInboxParking.producer(Settings.required("it.kafka.bootstrap"))) {
            producer.send(record).get(30, TimeUnit.SECONDS);
        }
        await(Duration.ofSeconds(30), consumer + " applied the traced record",
                () -> db.count(table, "order_id = '" + orderId + "'"), n -> n == 1);
        Path log = Path.of(Settings.required("it.server.log"));
        String span = await(Duration.ofSeconds(30), consumer + "'s span for the event in server.log",
                () -> TracedOrders.spans(TracedOrders.log(log), consumer + " process", eventId),
                spans -> !spans.isEmpty()).get(0);
        assertTrue(TracedOrders.inTrace(span, traceId) && span.contains(" CONSUMER "),
                "the consumer's span continues the recording trace " + traceId + ": " + span);
    }

    /**
     * Issue 41 (R5.7) on WildFly's Kafka consumers, each on its topic (loyalty: SmallRye's Reactive Messaging;
     * invoicing: KafkaInbox): v1, then v3, wait; v2 arrives late and is applied, then v3. A second order's v2 never
     * comes: an operator skips it and v3 goes on with no further record, by the sweep each consumer gets between
     * messages.
     */
    @Test
    @Order(1)
    void aLateVersionIsAppliedBeforeTheOneThatWaitedAndASkipReleasesAnIdleConsumerOnBothKafkaConsumers()
            throws Exception {
        String late = UUID.randomUUID().toString();
        String skipped = UUID.randomUUID().toString();
        try (KafkaProducer<String, String> producer = ReactiveInboxParking.producer(Settings.required("it.kafka.bootstrap"))) {
            for (String order : List.of(late, skipped)) {
                for (String topic : List.of(TOPIC, "outbox.Order")) {
                    producer.send(ReactiveInboxParking.strictRecord(topic, order, 1, "OrderPlaced", "{\"orderId\":\""
                            + order + "\",\"customerId\":\"wf-late-" + order + "\",\"amount\":3}")).get(30, TimeUnit.SECONDS);
                    producer.send(ReactiveInboxParking.strictRecord(topic, order, 3, "OrderAmended", "{\"orderId\":\""
                            + order + "\",\"note\":\"n\"}")).get(30, TimeUnit.SECONDS);
                }
            }
            await(Duration.ofSeconds(30), "v3 of both orders waiting at both consumers", () -> db.count("inbox_waiting",
                    "aggregate_id IN ('" + late + "', '" + skipped + "') AND aggregate_version = 3"), n -> n == 4);
            for (String topic : List.of(TOPIC, "outbox.Order")) {
                producer.send(ReactiveInboxParking.strictRecord(topic, late, 2, "OrderPaid", "{\"orderId\":\"" + late
                        + "\",\"customerId\":\"wf-late-" + late + "\",\"amount\":3}")).get(30, TimeUnit.SECONDS);
            }
        }
        await(Duration.ofSeconds(30), "v2 and then v3 of the late order at both consumers", () -> db.count(
                "processed_event", "aggregate_id = '" + late + "'"), n -> n == 6);
        List<List<Object>> entries = db.rows("SELECT version, previous_version FROM invoice_entry WHERE order_id = ?"
                + " ORDER BY version", late);
        assertEquals(3, entries.size(), "invoicing applied v1, v2, v3: " + entries);
        assertEquals(2L, ((Number) entries.get(2).get(1)).longValue(), "v3 applied on top of v2: " + entries);

        ExampleService service = ExampleService.fromSystemProperties();
        for (String consumer : List.of("loyalty", "invoicing")) {
            ExampleService.Reply reply = service.skipGap(consumer, skipped, 2, "v2 never recorded");
            assertEquals(200, reply.status(), consumer + ": " + reply);
        }
        await(Duration.ofSeconds(30), "v3 of the skipped order applied at both idle consumers", () -> db.count(
                "processed_event", "aggregate_id = '" + skipped + "' AND aggregate_version = 3"), n -> n == 2);
    }

    /**
     * Issue 41 item 4 (R5.7) on WildFly: the receipts consumer (KafkaInbox, on a topic of its own here) receives only
     * OrderPaid and OrderRefunded (outbox.inbox.receives, arquillian.xml). Records of one order as the publisher
     * writes them, out of order: v4 OrderRefunded waits for the payment v2, not for v3; v1 OrderPlaced is passed
     * over unmarked; when v2 comes, v2 and then v4 are applied, each mark keeping the version it followed.
     */
    @Test
    @Order(1)
    void aRefundWaitsAtAConsumerOfPaymentsAndRefundsOnlyForThePaymentNotForTheOrdersOtherEvents() throws Exception {
        String order = UUID.randomUUID().toString();
        String mine = "consumer = 'receipts' AND aggregate_id = '" + order + "'";
        try (KafkaProducer<String, String> producer = ReactiveInboxParking.producer(Settings.required("it.kafka.bootstrap"))) {
            producer.send(withPreviousVersions(ReactiveInboxParking.strictRecord(RECEIPTS_TOPIC, order, 4,
                    "OrderRefunded", "{\"orderId\":\"" + order + "\"}"), "OrderAmended=3,OrderPaid=2,OrderPlaced=1"))
                    .get(30, TimeUnit.SECONDS);
            await(Duration.ofSeconds(30), "v4 waits at receipts for the payment", () -> db.count("inbox_waiting", mine),
                    n -> n == 1);
            producer.send(ReactiveInboxParking.strictRecord(RECEIPTS_TOPIC, order, 1, "OrderPlaced", "{\"orderId\":\""
                    + order + "\",\"amount\":3}")).get(30, TimeUnit.SECONDS);
            producer.send(withPreviousVersions(ReactiveInboxParking.strictRecord(RECEIPTS_TOPIC, order, 2, "OrderPaid",
                    "{\"orderId\":\"" + order + "\",\"amount\":3}"), "OrderPlaced=1")).get(30, TimeUnit.SECONDS);
        }
        await(Duration.ofSeconds(30), "receipts applied v2 and then v4, v1 and v3 never waited for",
                () -> db.count("processed_event", mine), n -> n == 2);
        assertEquals(0, db.count("inbox_waiting", mine), "nothing left waiting at receipts");
        assertEquals(List.of(List.of(2L, 0L), List.of(4L, 2L)), db.rows("SELECT aggregate_version, previous_version"
                + " FROM processed_event WHERE " + mine + " ORDER BY aggregate_version").stream()
                .map(row -> row.stream().map(value -> ((Number) value).longValue()).toList()).toList(),
                "v2 followed none of receipts' types, v4 followed v2");
    }

    private static ProducerRecord<String, String> withPreviousVersions(ProducerRecord<String, String> record,
                                                                       String previousVersions) {
        record.headers().add("outboxPreviousVersions", previousVersions.getBytes(StandardCharsets.UTF_8));
        return record;
    }

    /** Issue 19 item 3: the loyalty drill (LoyaltyConsumer.STALL_PREFIX) holds the consumer 25 s, records wait. */
    @Test
    @Order(2)
    void aConsumerThatStopsFinishingRecordsTurnsLivenessDownNamingItAndUpWhenItCatchesUp() {
        ConsumerStallDrill.stallsAndRecovers(management, "loyalty", () -> {
            List<String> orders = new ArrayList<>();
            try (KafkaProducer<String, String> producer = ReactiveInboxParking.producer(Settings.required("it.kafka.bootstrap"))) {
                for (int i = 0; i < 4; i++) {
                    String order = UUID.randomUUID().toString();
                    orders.add(order);
                    String customer = i == 0 ? "drill-stall-loyalty-" + order : "after-stall-" + order;
                    producer.send(ReactiveInboxParking.outboxRecord(TOPIC, order, UUID.randomUUID(),
                            "{\"amount\":2,\"customerId\":\"" + customer + "\"}", "stall")).get(60, TimeUnit.SECONDS);
                }
            } catch (Exception e) {
                throw new AssertionError("could not write the drill's records to " + TOPIC, e);
            }
            String mine = "order_id IN ('" + String.join("','", orders) + "')";
            return () -> db.count("loyalty_points", mine) == 4;
        });
    }

    @Test
    @Order(3)
    void afterABrokerOutageTheReactiveMessagingConsumerResumesAndNothingIsNamed() throws Exception {
        KafkaBroker broker = new KafkaBroker();
        broker.stop();
        try {
            Thread.sleep(10_000); // as long as stopped Liberty's channel for good (CWMRX1002E)
        } finally {
            broker.start();
        }
        List<String> orders = new ArrayList<>();
        try (KafkaProducer<String, String> producer = ReactiveInboxParking.producer(broker.bootstrapServers())) {
            for (int i = 0; i < 3; i++) {
                String order = UUID.randomUUID().toString();
                orders.add(order);
                producer.send(ReactiveInboxParking.outboxRecord(TOPIC, order, UUID.randomUUID(), "{\"amount\":2}",
                        "after-outage")).get(60, TimeUnit.SECONDS);
            }
        }
        String mine = "order_id IN ('" + String.join("','", orders) + "')";
        // SmallRye's connector reconnects by itself (the runbook says so): the effects arrive without a restart. The
        // test's stall window (10 s) is shorter than its reconnect can take, so a name on the way is no failure here.
        long start = System.nanoTime();
        await(Duration.ofSeconds(90), "loyalty applied the three records written after the outage",
                () -> db.count("loyalty_points", mine), n -> n == 3);
        await(Duration.ofSeconds(30), "loyalty caught up, nothing waiting, not named",
                () -> ConsumerHealth.read(management), h -> h.waiting("loyalty") == 0 && !h.stalled("loyalty"));
        System.out.printf("WildFly, kafka outage, then: loyalty (Reactive Messaging) resumed after %d ms%n",
                (System.nanoTime() - start) / 1_000_000);
        ConsumerHealth after = await(Duration.ofSeconds(30), "shipping and invoicing readable and not stalled",
                () -> ConsumerHealth.read(management), h -> h.waiting("shipping") >= 0 && h.waiting("invoicing") >= 0);
        assertTrue(!after.stalled("shipping") && !after.stalled("invoicing"), after.raw());
    }
}
