package dev.outbox.internal.transport.kafka;

import dev.outbox.EventId;
import dev.outbox.InboxedEvent;
import dev.outbox.Ordering;
import dev.outbox.OutboxEvent;
import dev.outbox.OutboxHeaders;
import dev.outbox.internal.inbox.kafka.RecordHeaders;
import dev.outbox.internal.transport.CloudEventAttributes;
import dev.outbox.spi.OutboundEvent;
import io.cloudevents.CloudEvent;
import io.cloudevents.kafka.CloudEventDeserializer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.time.OffsetDateTime;
import java.util.Map;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

/**
 * Issue 45 item 6 on Kafka: a record of a type that opts in is a CloudEvent in the Kafka binding's binary mode, as the
 * CloudEvents SDK reads it, and still the same outbox record for the inbox.
 */
class CloudEventRecordTest {

    private static final OutboundEvent PAID = new OutboundEvent(EventId.next(),
            OutboxEvent.of("Order", "o-7", 4, "OrderPaid", "{\"amount\":\"12.50\"}"), OffsetDateTime.now(), 1, 1, false,
            Ordering.STRICT, null);

    private static ProducerRecord<String, String> record(Map<String, String> settings) {
        return KafkaTransport.recordOf(PAID, "outbox.Order",
                new CloudEventAttributes(name -> Optional.ofNullable(settings.get(name))).of(PAID));
    }

    @Test
    void theCloudEventsSdkReadsTheRecordAsTheEventWithItsIdTypeAndAggregate() {
        ProducerRecord<String, String> record = record(Map.of("outbox.cloudevents.enabled.OrderPaid", "true",
                "outbox.cloudevents.source", "/orders"));
        try (CloudEventDeserializer sdk = new CloudEventDeserializer()) {
            CloudEvent event = sdk.deserialize(record.topic(), record.headers(),
                    record.value().getBytes(StandardCharsets.UTF_8));
            assertEquals(PAID.id().toString(), event.getId(), "ce_id is the event id");
            assertEquals("OrderPaid", event.getType());
            assertEquals("/orders", event.getSource().toString());
            assertEquals("1.0", event.getSpecVersion().toString());
            assertEquals("application/json", event.getDataContentType());
            assertEquals("o-7", event.getExtension("partitionkey"));
            assertEquals("4", String.valueOf(event.getExtension("aggregateversion")));
            assertEquals("{\"amount\":\"12.50\"}", new String(event.getData().toBytes(), StandardCharsets.UTF_8),
                    "the data is the payload, as recorded");
        }
        InboxedEvent inboxed = new RecordHeaders(record.headers(), "outbox.Order-0@1").event(record.value()).orElseThrow();
        assertEquals(PAID.id(), inboxed.eventId(), "the outbox's own headers stay: the inbox reads the same event");
        assertEquals(4L, inboxed.aggregateVersion());
    }

    @Test
    void aTypeThatDoesNotOptInGoesOutWithoutCloudEventsHeaders() {
        ProducerRecord<String, String> record = record(Map.of());
        assertNull(record.headers().lastHeader("ce_id"));
        assertNull(record.headers().lastHeader("content-type"));
        assertEquals(PAID.id().toString(), new String(record.headers().lastHeader(OutboxHeaders.EVENT_ID).value(),
                StandardCharsets.UTF_8));
    }
}
