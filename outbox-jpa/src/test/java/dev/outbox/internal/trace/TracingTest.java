package dev.outbox.internal.trace;

import dev.outbox.EventId;
import dev.outbox.InboxedEvent;
import dev.outbox.Ordering;
import dev.outbox.TraceContext;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.TraceFlags;
import io.opentelemetry.api.trace.TraceState;
import io.opentelemetry.context.Scope;
import org.junit.jupiter.api.Test;

import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * R6.7 on the OpenTelemetry API alone (no SDK): what the recorder stores from the current span, and that the
 * inbox's span continues the recorded trace. The spans a real tracer exports are checked end to end (TracingIT).
 */
class TracingTest {

    private static final String TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736";
    private static final String SPAN_ID = "00f067aa0ba902b7";

    private final Tracing tracing = new OpenTelemetryTracing(OpenTelemetry.noop().getTracer("test"));

    @Test
    void theRecorderKeepsTheCurrentSpansContextWithItsTraceStateInW3COrder() {
        TraceState state = TraceState.builder().put("vendor1", "a").put("vendor2", "b").build(); // vendor2 newest
        SpanContext recording = SpanContext.create(TRACE_ID, SPAN_ID, TraceFlags.getSampled(), state);
        try (Scope ignored = Span.wrap(recording).makeCurrent()) {
            assertEquals(Optional.of(new TraceContext("00-" + TRACE_ID + "-" + SPAN_ID + "-01", "vendor2=b,vendor1=a")),
                    tracing.current());
        }
    }

    @Test
    void withNoSpanCurrentNothingIsRecorded() {
        assertEquals(Optional.empty(), tracing.current(), "no span, no context on the row and no header");
        assertEquals(Optional.empty(), Tracing.NONE.current());
    }

    @Test
    void theConsumersSpanContinuesTheRecordedTraceWhileTheChangeRunsAndEndsWithIt() {
        TraceContext recorded = new TraceContext("00-" + TRACE_ID + "-" + SPAN_ID + "-01", "vendor2=b,vendor1=a");
        InboxedEvent event = new InboxedEvent(EventId.next(), "OrderPaid", "Order", "o-1", 2L, 1, Ordering.STRICT,
                "{}", recorded);
        try (Tracing.Step step = tracing.consuming("shipping", event)) {
            SpanContext current = Span.current().getSpanContext();
            assertEquals(TRACE_ID, current.getTraceId(), "the consumer's work is in the recording request's trace");
            assertEquals("b", current.getTraceState().get("vendor2"), "the trace state travels with it");
            step.outcome("FIRST");
        }
        assertFalse(Span.current().getSpanContext().isValid(), "the span is no longer current after the attempt");
    }

    @Test
    void aTraceContextReadFromAMessageMustBeAVersion00TraceParent() {
        assertTrue(TraceContext.read("00-" + TRACE_ID + "-" + SPAN_ID + "-01", null).isPresent());
        assertEquals(Optional.empty(), TraceContext.read(null, "a=b"), "no header");
        assertEquals(Optional.empty(), TraceContext.read("garbage", null), "a damaged header is ignored, not fatal");
        assertEquals(Optional.empty(), TraceContext.read("00-" + "0".repeat(32) + "-" + SPAN_ID + "-01", null),
                "the all-zero trace id is invalid");
        assertEquals(Optional.empty(), TraceContext.read("00-" + TRACE_ID.toUpperCase() + "-" + SPAN_ID + "-01", null),
                "W3C ids are lower-case");
        assertNull(new TraceContext("00-" + TRACE_ID + "-" + SPAN_ID + "-01", "x".repeat(513)).traceState(),
                "a trace state longer than the column is dropped whole, as W3C allows");
    }
}
