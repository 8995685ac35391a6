package dev.outbox.it.flow;

import dev.outbox.it.support.KafkaTopic;
import dev.outbox.it.support.OutboxDatabase;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import static dev.outbox.it.support.Eventually.await;
import static dev.outbox.it.support.KafkaTopic.header;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Issue 16 item 8, the same check on every server: the example's loyalty consumer (MicroProfile Reactive Messaging
 * behind {@code ReactiveInbox}) parks a record it cannot apply on {@code <topic>.dead-letter} with the record's own
 * key and headers, parks a record that is no outbox record the same way, and applies the good record after them.
 * The records are written straight to the topic the channel reads, so only the consumer side is under test.
 */
public final class ReactiveInboxParking {

    private static final Duration SOON = Duration.ofSeconds(60);

    private ReactiveInboxParking() {
    }

    public static void parksWithTheRecordsOwnKeyAndHeaders(String bootstrap, String topic, OutboxDatabase db)
            throws Exception {
        String probe = "probe-" + UUID.randomUUID();
        String poisonKey = UUID.randomUUID().toString();
        UUID poisonEvent = UUID.randomUUID();
        String strangerKey = UUID.randomUUID().toString();
        String goodKey = UUID.randomUUID().toString();
        UUID goodEvent = UUID.randomUUID();
        try (KafkaProducer<String, String> producer = producer(bootstrap)) {
            // An OrderPaid without an amount: the loyalty consumer's award fails on every attempt.
            producer.send(outboxRecord(topic, poisonKey, poisonEvent, "{}", probe)).get(30, TimeUnit.SECONDS);
            ProducerRecord<String, String> stranger = new ProducerRecord<>(topic, strangerKey, "not an outbox event");
            stranger.headers().add("probe", probe.getBytes(StandardCharsets.UTF_8));
            producer.send(stranger).get(30, TimeUnit.SECONDS);
            producer.send(outboxRecord(topic, goodKey, goodEvent, "{\"amount\":7}", probe)).get(30, TimeUnit.SECONDS);
        }

        await(SOON, "the good record after the two bad ones applied by loyalty",
                () -> db.count("loyalty_points", "order_id = '" + goodKey + "'"), n -> n == 1);
        assertEquals(0, db.count("processed_event", "consumer = 'loyalty' AND event_id = '" + poisonEvent + "'"),
                "no inbox mark for the parked event: a replay applies it once repaired");

        ConsumerRecord<String, String> parked = await(SOON, "the poison record on " + topic + ".dead-letter",
                () -> parkedByLoyalty(bootstrap, topic, poisonKey), r -> r != null);
        assertEquals(probe, header(parked, "probe"), "the record's own headers are kept");
        assertEquals(poisonEvent.toString(), header(parked, "outboxEventId"), "the event id is kept");
        assertEquals("OrderPaid", header(parked, "outboxEventType"), "the outbox headers are kept");
        assertEquals("{}", parked.value(), "the value is kept");
        assertEquals("NullPointerException", header(parked, "outboxFailure"), "why it was parked");

        ConsumerRecord<String, String> strangerParked = await(SOON, "the record without an outbox event id parked",
                () -> parkedByLoyalty(bootstrap, topic, strangerKey), r -> r != null);
        assertEquals(probe, header(strangerParked, "probe"), "its headers are kept");
        assertEquals("NotAnOutboxRecord", header(strangerParked, "outboxFailure"), "why it was parked");
    }

    private static ConsumerRecord<String, String> parkedByLoyalty(String bootstrap, String topic, String key) {
        return KafkaTopic.records(bootstrap, topic + ".dead-letter", Duration.ofSeconds(2)).stream()
                .filter(r -> key.equals(r.key()) && "loyalty".equals(header(r, "outboxFailedConsumer")))
                .findFirst().orElse(null);
    }

    /** An independent OrderPaid as the publisher writes it, for consumer-side tests that bypass the publisher. */
    public static ProducerRecord<String, String> outboxRecord(String topic, String orderId, UUID eventId,
                                                               String payload, String probe) {
        return outboxRecord(topic, orderId, orderId, eventId, "OrderPaid", payload, probe);
    }

    /** The same with its own key (the partition) and event type. */
    public static ProducerRecord<String, String> outboxRecord(String topic, String key, String orderId, UUID eventId,
                                                               String eventType, String payload, String probe) {
        ProducerRecord<String, String> record = new ProducerRecord<>(topic, key, payload);
        // Independent: the consumer applies it whatever versions it saw of the aggregate (no gap to wait out).
        Map.of("outboxEventId", eventId.toString(), "outboxEventType", eventType, "outboxAggregateType", "Order",
                        "outboxAggregateId", orderId, "outboxAggregateVersion", "1", "outboxSchemaVersion", "1",
                        "outboxOrdering", "independent", "probe", probe)
                .forEach((name, value) -> record.headers().add(name, value.getBytes(StandardCharsets.UTF_8)));
        return record;
    }

    /** A record as the publisher writes it, of a strict type at {@code version} (keyed by the order). */
    public static ProducerRecord<String, String> strictRecord(String topic, String orderId, long version,
                                                              String eventType, String payload) {
        ProducerRecord<String, String> record = new ProducerRecord<>(topic, orderId, payload);
        Map.of("outboxEventId", UUID.randomUUID().toString(), "outboxEventType", eventType, "outboxAggregateType",
                        "Order", "outboxAggregateId", orderId, "outboxAggregateVersion", Long.toString(version),
                        "outboxSchemaVersion", "1", "outboxOrdering", "strict")
                .forEach((name, value) -> record.headers().add(name, value.getBytes(StandardCharsets.UTF_8)));
        return record;
    }

    public static KafkaProducer<String, String> producer(String bootstrap) {
        Properties properties = new Properties();
        properties.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        properties.put(ProducerConfig.ACKS_CONFIG, "all");
        return new KafkaProducer<>(properties, new StringSerializer(), new StringSerializer());
    }
}
