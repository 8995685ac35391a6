package dev.outbox.internal.transport.kafka;

import dev.outbox.OutboxEvent;
import dev.outbox.internal.config.Settings;

import java.util.Optional;
import java.util.function.Function;

/**
 * Which topic an event goes to: {@code outbox.kafka.topic.<EventType>} when set, else {@code outbox.kafka.topic}
 * (default {@code outbox.{aggregateType}}: one topic per aggregate type, so one aggregate's events share a
 * topic and, keyed by aggregate id, a partition, R9.1). Either may use the placeholders {@code {aggregateType}}
 * and {@code {eventType}}. Read per send: an operator can re-point a type while the server runs.
 */
final class KafkaTopics {

    private final Function<String, Optional<String>> source;

    KafkaTopics(Function<String, Optional<String>> source) {
        this.source = source;
    }

    String topicFor(OutboxEvent event) {
        String template = Settings.KAFKA_TOPIC.text(source, event.eventType());
        return template.replace("{aggregateType}", event.aggregateType()).replace("{eventType}", event.eventType());
    }
}
