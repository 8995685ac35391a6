package dev.outbox.internal.inbox.kafka;

import dev.outbox.EventId;
import dev.outbox.InboxedEvent;
import dev.outbox.Ordering;
import dev.outbox.OutboxHeaders;
import dev.outbox.TraceContext;
import dev.outbox.internal.inbox.Received;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;

import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Optional;

/** The outbox headers of one Kafka record and where it came from (topic, partition, offset), for the inbox. */
public final class RecordHeaders {

    private final Headers headers;
    private final String position;

    public RecordHeaders(Headers headers, String position) {
        this.headers = headers;
        this.position = position;
    }

    public static RecordHeaders of(ConsumerRecord<?, ?> record) {
        return new RecordHeaders(record.headers(), record.topic() + "-" + record.partition() + "@" + record.offset());
    }

    /** The last value of a header as UTF-8 text, or null. */
    public String text(String name) {
        Header last = headers.lastHeader(name);
        return last == null || last.value() == null ? null : new String(last.value(), StandardCharsets.UTF_8);
    }

    /** Topic, partition and offset, for logs. */
    public String position() {
        return position;
    }

    /** The event the headers describe, or empty when the record is no outbox record (no valid event id). */
    public Optional<InboxedEvent> event(String payload) {
        String id = text(OutboxHeaders.EVENT_ID);
        if (id == null) {
            return Optional.empty();
        }
        EventId eventId;
        try {
            eventId = EventId.parse(id);
        } catch (IllegalArgumentException e) {
            return Optional.empty();
        }
        Long schema = number(text(OutboxHeaders.SCHEMA_VERSION));
        return Optional.of(new InboxedEvent(eventId, text(OutboxHeaders.EVENT_TYPE), text(OutboxHeaders.AGGREGATE_TYPE),
                text(OutboxHeaders.AGGREGATE_ID), number(text(OutboxHeaders.AGGREGATE_VERSION)),
                schema == null ? null : schema.intValue(), Ordering.ofHeader(text(OutboxHeaders.ORDERING)), payload,
                TraceContext.read(text(OutboxHeaders.TRACEPARENT), text(OutboxHeaders.TRACESTATE)).orElse(null)));
    }

    /**
     * The record as the inbox receives it: its event, its position and the aggregate's earlier versions by type
     * (R5.7); empty when the record is no outbox record.
     */
    public Optional<Received> received(String payload) {
        return event(payload).map(event -> new Received(event, position, Map.of(),
                Received.previousVersions(text(OutboxHeaders.PREVIOUS_VERSIONS))));
    }

    private static Long number(String text) {
        try {
            return text == null ? null : Long.valueOf(text);
        } catch (NumberFormatException e) {
            return null;
        }
    }
}
