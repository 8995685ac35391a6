package dev.outbox.kafka;

import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.eclipse.microprofile.reactive.messaging.Message;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

/**
 * Issue 16 item 8: on WildFly (SmallRye's smallrye-kafka) a message does not unwrap to a ConsumerRecord, and a
 * parked record lost its topic, key and headers. The message's own getters give them; here a message with the
 * shape of SmallRye's IncomingKafkaRecord (its getters by name), since no SmallRye type may be named.
 */
class ReactiveInboxSourceTest {

    /** The getters SmallRye's IncomingKafkaRecord has; unwrap to ConsumerRecord fails as it does there. */
    public static final class SmallRyeShaped implements Message<String> {
        private final Headers headers = new RecordHeaders().add("outboxEventId",
                "0190f7a2-0000-7000-8000-000000000001".getBytes(StandardCharsets.UTF_8));

        @Override
        public String getPayload() {
            return "{}";
        }

        public String getTopic() {
            return "outbox.Order";
        }

        public Object getKey() {
            return "order-7";
        }

        public Headers getHeaders() {
            return headers;
        }

        public int getPartition() {
            return 2;
        }

        public long getOffset() {
            return 41;
        }
    }

    @Test
    void aSmallRyeRecordKeepsItsTopicKeyHeadersAndPosition() {
        SmallRyeShaped message = new SmallRyeShaped();
        ReactiveInbox.Source source = ReactiveInbox.Source.of(message);
        assertEquals("outbox.Order", source.topic(), "parked on <topic>.dead-letter, not unknown.dead-letter");
        assertEquals("order-7", source.key(), "the original key, so the aggregate's partition is kept");
        assertSame(message.getHeaders(), source.headers(), "the outbox headers travel to the dead-letter topic");
        assertEquals("outbox.Order-2@41", source.position());
    }
}
