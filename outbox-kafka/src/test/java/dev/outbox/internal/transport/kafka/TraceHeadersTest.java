package dev.outbox.internal.transport.kafka;

import dev.outbox.EventId;
import dev.outbox.InboxedEvent;
import dev.outbox.Ordering;
import dev.outbox.OutboxEvent;
import dev.outbox.OutboxHeaders;
import dev.outbox.TraceContext;
import dev.outbox.internal.inbox.kafka.RecordHeaders;
import dev.outbox.spi.OutboundEvent;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;

import java.time.OffsetDateTime;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

/** R6.7 on Kafka: the recorded trace context goes out as W3C headers and the inbox reads it back; none if none. */
class TraceHeadersTest {

    private static final TraceContext RECORDED =
            new TraceContext("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", "vendor=opaque");

    private static OutboundEvent outbound(TraceContext trace) {
        return new OutboundEvent(EventId.next(), OutboxEvent.of("Order", "o-1", 2, "OrderPaid", "{}"),
                OffsetDateTime.now(), 1, 1, false, Ordering.STRICT, trace);
    }

    @Test
    void theRecordedContextTravelsAsTraceparentAndTracestateAndTheInboxReadsItBack() {
        ProducerRecord<String, String> record = KafkaTransport.recordOf(outbound(RECORDED), "outbox.Order", Map.of());
        assertEquals(RECORDED.traceParent(), new String(record.headers().lastHeader("traceparent").value()));
        assertEquals("vendor=opaque", new String(record.headers().lastHeader("tracestate").value()));
        InboxedEvent received = new RecordHeaders(record.headers(), "outbox.Order-0@1").event("{}").orElseThrow();
        assertEquals(RECORDED, received.trace());
    }

    @Test
    void anEventRecordedOutsideASpanSendsNoTraceHeader() {
        ProducerRecord<String, String> record = KafkaTransport.recordOf(outbound(null), "outbox.Order", Map.of());
        assertNull(record.headers().lastHeader(OutboxHeaders.TRACEPARENT), "tracing off leaves no header");
        assertNull(record.headers().lastHeader(OutboxHeaders.TRACESTATE));
        assertNull(new RecordHeaders(record.headers(), "outbox.Order-0@1").event("{}").orElseThrow().trace());
    }
}
