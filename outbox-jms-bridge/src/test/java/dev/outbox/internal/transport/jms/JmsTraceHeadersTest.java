package dev.outbox.internal.transport.jms;

import dev.outbox.EventId;
import dev.outbox.Ordering;
import dev.outbox.OutboxEvent;
import dev.outbox.TraceContext;
import dev.outbox.spi.OutboundEvent;
import org.junit.jupiter.api.Test;

import java.time.OffsetDateTime;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

/** R6.7 on JMS: the recorded trace context goes out as W3C-named string properties, and none without a context. */
class JmsTraceHeadersTest {

    /** The properties a message was given, by name. */
    private static Map<String, Object> labelled(TraceContext trace) throws Exception {
        return LabelledProperties.of(new OutboundEvent(EventId.next(), OutboxEvent.of("Order", "o-1", 2, "OrderPaid",
                "{}"), OffsetDateTime.now(), 1, 1, false, Ordering.STRICT, trace), Map.of());
    }

    @Test
    void theRecordedContextGoesOutAsTraceparentAndTracestate() throws Exception {
        TraceContext recorded = new TraceContext("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", "v=1");
        Map<String, Object> properties = labelled(recorded);
        assertEquals(recorded.traceParent(), properties.get("traceparent"));
        assertEquals("v=1", properties.get("tracestate"));
        assertEquals("OrderPaid", properties.get("outboxEventType"), "the outbox's own properties as before");
    }

    @Test
    void anEventRecordedOutsideASpanGoesOutWithoutATraceProperty() throws Exception {
        Map<String, Object> properties = labelled(null);
        assertFalse(properties.containsKey("traceparent") || properties.containsKey("tracestate"),
                "tracing off leaves no header: " + properties.keySet());
    }
}
