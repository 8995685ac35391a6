package dev.outbox.inbox.reactive;

import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;
import org.eclipse.microprofile.reactive.messaging.Message;

import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.util.Optional;

/**
 * The Kafka headers and position of an incoming Reactive Messaging message. Open Liberty's {@code liberty-kafka}
 * connector unwraps a message to its {@link ConsumerRecord}; SmallRye's {@code smallrye-kafka} (WildFly) hands an
 * {@code IncomingKafkaRecord} with {@code getHeaders()}, found without a compile-time dependency on SmallRye.
 */
final class RecordHeaders {

    private final Headers headers;
    private final String position;

    private RecordHeaders(Headers headers, String position) {
        this.headers = headers;
        this.position = position;
    }

    static Optional<RecordHeaders> of(Message<?> message) {
        try {
            ConsumerRecord<?, ?> record = message.unwrap(ConsumerRecord.class);
            if (record != null) {
                return Optional.of(new RecordHeaders(record.headers(),
                        record.topic() + "-" + record.partition() + "@" + record.offset()));
            }
        } catch (RuntimeException notLiberty) {
            // fall through to the metadata
        }
        try {
            Method getHeaders = message.getClass().getMethod("getHeaders");
            Object found = getHeaders.invoke(message);
            if (found instanceof Headers kafkaHeaders) {
                return Optional.of(new RecordHeaders(kafkaHeaders, position(message)));
            }
        } catch (ReflectiveOperationException | RuntimeException notKafka) {
            // some other connector's message
        }
        return Optional.empty();
    }

    private static String position(Object record) {
        try {
            Object topic = record.getClass().getMethod("getTopic").invoke(record);
            Object partition = record.getClass().getMethod("getPartition").invoke(record);
            Object offset = record.getClass().getMethod("getOffset").invoke(record);
            return topic + "-" + partition + "@" + offset;
        } catch (ReflectiveOperationException | RuntimeException e) {
            return "?";
        }
    }

    /** The last value of a header as UTF-8 text, or null. */
    String text(String name) {
        Header last = headers.lastHeader(name);
        return last == null || last.value() == null ? null : new String(last.value(), StandardCharsets.UTF_8);
    }

    /** Topic, partition and offset, for logs. */
    String position() {
        return position;
    }
}
