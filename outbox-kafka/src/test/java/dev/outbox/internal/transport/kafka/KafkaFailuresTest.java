package dev.outbox.internal.transport.kafka;

import dev.outbox.internal.config.InvalidSettingException;
import dev.outbox.spi.SendResult;
import org.apache.kafka.common.errors.InvalidTopicException;
import org.apache.kafka.common.errors.NetworkException;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.errors.SaslAuthenticationException;
import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Optional;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** The Kafka client's errors mapped onto the transport contract's classes, on the real exception types. */
class KafkaFailuresTest {

    @Test
    void deterministicRecordErrorsParkTheEvent() {
        assertInstanceOf(SendResult.PermanentFailure.class,
                KafkaFailures.classify(new RecordTooLargeException("too big"), true), "record too large");
        assertInstanceOf(SendResult.PermanentFailure.class,
                KafkaFailures.classify(new SerializationException("bad"), true), "serialization");
    }

    /**
     * Issue 16 item 9: an ACL or topic-name mistake is the same for every record: parking would park every event
     * of every strict aggregate at once. It backs off as a transient failure and shows as its error class in the
     * metrics and the readiness check, like a missing JMS destination.
     */
    @Test
    void configurationErrorsBackOffInsteadOfParkingEveryEvent() {
        assertInstanceOf(SendResult.TransientFailure.class,
                KafkaFailures.classify(new TopicAuthorizationException(Set.of("t")), false), "authorization");
        assertInstanceOf(SendResult.TransientFailure.class,
                KafkaFailures.classify(new InvalidTopicException("bad name"), true), "invalid topic");
    }

    /** Issue 16 item 9: settings that would break per-aggregate order or make the producer throw are refused. */
    @Test
    void passThroughSettingsThatBreakOrderOrTheProducerStopTheStart() {
        for (String forbidden : List.of("partitioner.class", "transactional.id", "key.serializer", "value.serializer")) {
            String name = "outbox.kafka.producer." + forbidden;
            InvalidSettingException refused = assertThrows(InvalidSettingException.class, () -> KafkaSettings.read(
                    n -> Optional.ofNullable(n.equals(name) ? "x" : null), Set.of(name)), forbidden);
            assertEquals(name, refused.name());
        }
    }

    /** Issue 16 item 9: a null value is a tombstone on a compacted topic; an event stored by reference is not one. */
    @Test
    void anEventStoredByReferenceIsSentWithAnEmptyValueNeverATombstone() {
        var event = new dev.outbox.OutboxEvent("Order", "o1", 1, "OrderPaid", 1, null,
                java.net.URI.create("https://store/o1/v1"));
        var record = KafkaTransport.recordOf(new dev.outbox.spi.OutboundEvent(
                new dev.outbox.EventId(java.util.UUID.randomUUID()), event, java.time.OffsetDateTime.now(), 1, 1),
                "outbox.Order", java.util.Map.of());
        assertEquals("", record.value(), "an empty value, the reference in its header");
        assertEquals("https://store/o1/v1", new String(record.headers()
                .lastHeader(dev.outbox.OutboxHeaders.PAYLOAD_REFERENCE).value(), java.nio.charset.StandardCharsets.UTF_8));
    }

    @Test
    void aBrokerThatNeverTookTheRecordIsATransientFailure() {
        assertInstanceOf(SendResult.TransientFailure.class,
                KafkaFailures.classify(new TimeoutException("metadata not available"), true));
        assertInstanceOf(SendResult.TransientFailure.class,
                KafkaFailures.classify(new SaslAuthenticationException("bad password"), false),
                "bad credentials are fixed in configuration, never by parking every event");
    }

    @Test
    void aRecordWhoseAckNeverCameIsAnUnknownOutcome() {
        assertInstanceOf(SendResult.UnknownOutcome.class,
                KafkaFailures.classify(new TimeoutException("expired after delivery timeout"), false));
        assertInstanceOf(SendResult.UnknownOutcome.class,
                KafkaFailures.classify(new NetworkException("connection lost"), false));
    }

    @Test
    void theOutboxGuaranteesCannotBeTurnedOffByPassThroughSettings() {
        KafkaSettings settings = KafkaSettings.read(name -> Optional.ofNullable(switch (name) {
            case "outbox.kafka.producer.acks" -> "0";
            case "outbox.kafka.producer.enable.idempotence" -> "false";
            case "outbox.kafka.producer.linger.ms" -> "20";
            case "outbox.kafka.producer.sasl.jaas.config" -> "secret";
            default -> null;
        }), Set.of("outbox.kafka.producer.acks", "outbox.kafka.producer.enable.idempotence",
                "outbox.kafka.producer.linger.ms", "outbox.kafka.producer.sasl.jaas.config", "outbox.other"));
        var properties = settings.producerProperties();
        assertEquals("all", properties.get("acks"), "acks=all always (R4.7)");
        assertEquals("true", properties.get("enable.idempotence"), "idempotence always");
        assertEquals("20", properties.get("linger.ms"), "tuning passes through");
        assertEquals("secret", properties.get("sasl.jaas.config"), "security settings pass through");
        assertFalse(settings.toString().contains("secret"), "settings never print a credential (R6.3): " + settings);
    }

    @Test
    void topicsComeFromTheTypeTheDefaultOrTheAggregateType() {
        var event = dev.outbox.OutboxEvent.of("Order", "o1", 1, "OrderPaid", "{}");
        assertEquals("outbox.Order", new KafkaTopics(name -> Optional.empty()).topicFor(event));
        assertEquals("payments", new KafkaTopics(name -> Optional.ofNullable(
                name.equals("outbox.kafka.topic.OrderPaid") ? "payments" : "x.{eventType}")).topicFor(event));
        assertEquals("x.OrderPaid", new KafkaTopics(name -> Optional.ofNullable(
                name.equals("outbox.kafka.topic") ? "x.{eventType}" : null)).topicFor(event));
    }
}
