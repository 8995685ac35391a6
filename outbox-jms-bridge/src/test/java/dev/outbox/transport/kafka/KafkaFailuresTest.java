package dev.outbox.transport.kafka;

import dev.outbox.transport.SendResult;
import org.apache.kafka.common.errors.NetworkException;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.errors.SaslAuthenticationException;
import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.junit.jupiter.api.Test;

import java.util.Optional;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

/** The Kafka client's errors mapped onto the transport contract's classes, on the real exception types. */
class KafkaFailuresTest {

    @Test
    void deterministicRecordErrorsParkTheEvent() {
        assertInstanceOf(SendResult.PermanentFailure.class,
                KafkaFailures.classify(new RecordTooLargeException("too big"), true), "record too large");
        assertInstanceOf(SendResult.PermanentFailure.class,
                KafkaFailures.classify(new SerializationException("bad"), true), "serialization");
        assertInstanceOf(SendResult.PermanentFailure.class,
                KafkaFailures.classify(new TopicAuthorizationException(Set.of("t")), false), "authorization");
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
        var event = dev.outbox.event.OutboxEvent.of("Order", "o1", 1, "OrderPaid", "{}");
        assertEquals("outbox.Order", new KafkaTopics(name -> Optional.empty()).topicFor(event));
        assertEquals("payments", new KafkaTopics(name -> Optional.ofNullable(
                name.equals("outbox.kafka.topic.OrderPaid") ? "payments" : "x.{eventType}")).topicFor(event));
        assertEquals("x.OrderPaid", new KafkaTopics(name -> Optional.ofNullable(
                name.equals("outbox.kafka.topic") ? "x.{eventType}" : null)).topicFor(event));
    }
}
