package dev.outbox.internal.trace;

import dev.outbox.EventId;
import dev.outbox.InboxedEvent;
import dev.outbox.Ordering;
import dev.outbox.OutboxEvent;
import dev.outbox.TraceContext;
import dev.outbox.spi.OutboundEvent;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanBuilder;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.TraceFlags;
import io.opentelemetry.api.trace.TraceState;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Scope;
import io.opentelemetry.sdk.common.CompletableResultCode;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.LinkData;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import io.opentelemetry.sdk.trace.export.SpanExporter;
import io.opentelemetry.sdk.trace.samplers.Sampler;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.Proxy;
import java.time.OffsetDateTime;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * R6.7 against OpenTelemetry's own SDK: the context the recorder stores, the consumer's span as the recording
 * span's child, the publisher's span linked to its events, and a tracer that is off or failing, which must leave
 * the outbox untouched. The servers' exporters are checked end to end (DeliveryContract, KafkaIT).
 */
class TracingTest {

    private static final String TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736";
    private static final String SPAN_ID = "00f067aa0ba902b7";
    private static final TraceContext RECORDED = new TraceContext("00-" + TRACE_ID + "-" + SPAN_ID + "-01",
            "vendor2=b,vendor1=a");

    private final List<SpanData> exported = new CopyOnWriteArrayList<>();
    private final SdkTracerProvider provider = SdkTracerProvider.builder()
            .addSpanProcessor(SimpleSpanProcessor.create(new SpanExporter() {
                @Override
                public CompletableResultCode export(Collection<SpanData> spans) {
                    exported.addAll(spans);
                    return CompletableResultCode.ofSuccess();
                }

                @Override
                public CompletableResultCode flush() {
                    return CompletableResultCode.ofSuccess();
                }

                @Override
                public CompletableResultCode shutdown() {
                    return CompletableResultCode.ofSuccess();
                }
            })).build();
    private final Tracing tracing = new OpenTelemetryTracing(provider.get("test"));

    @AfterEach
    void close() {
        provider.close();
    }

    private static InboxedEvent paid(TraceContext trace) {
        return new InboxedEvent(EventId.next(), "OrderPaid", "Order", "order-qzq", 2L, 1, Ordering.STRICT, "{}",
                trace);
    }

    @Test
    void theRecorderKeepsTheCurrentSpansContextWithItsTraceStateInW3COrder() {
        TraceState state = TraceState.builder().put("vendor1", "a").put("vendor2", "b").build(); // vendor2 newest
        SpanContext recording = SpanContext.create(TRACE_ID, SPAN_ID, TraceFlags.getSampled(), state);
        try (Scope ignored = Span.wrap(recording).makeCurrent()) {
            assertEquals(Optional.of(RECORDED), tracing.current());
        }
        assertEquals(Optional.empty(), tracing.current(), "no span, no context on the row and no header");
        assertEquals(Optional.empty(), Tracing.NONE.current());
    }

    @Test
    void theConsumersSpanIsTheRecordingSpansChildCurrentWhileTheChangeRunsAndNamesNoPayloadOrAggregateId() {
        InboxedEvent event = paid(RECORDED);
        String inside;
        try (Tracing.Step step = tracing.consuming("shipping", event)) {
            inside = Span.current().getSpanContext().getSpanId();
            step.outcome("FIRST");
        }
        assertFalse(Span.current().getSpanContext().isValid(), "the span is no longer current after the attempt");
        SpanData span = exported.get(0);
        assertEquals("shipping process", span.getName());
        assertEquals(SpanKind.CONSUMER, span.getKind());
        assertEquals(TRACE_ID, span.getTraceId(), "in the recording request's trace");
        assertEquals(SPAN_ID, span.getParentSpanId(), "the recording span is its parent");
        assertEquals(span.getSpanId(), inside, "current while the change ran: the consumer's own spans nest under it");
        assertEquals("b", span.getSpanContext().getTraceState().get("vendor2"), "the trace state travels with it");
        assertEquals(event.eventId().toString(), span.getAttributes().get(AttributeKey.stringKey("outbox.event.id")));
        assertEquals("OrderPaid", span.getAttributes().get(AttributeKey.stringKey("outbox.event.type")));
        assertEquals(2L, span.getAttributes().get(AttributeKey.longKey("outbox.aggregate.version")));
        assertEquals("FIRST", span.getAttributes().get(AttributeKey.stringKey("outbox.outcome")));
        assertFalse(span.getAttributes().asMap().values().stream().anyMatch(v -> String.valueOf(v).contains("qzq")),
                "no aggregate id among the attributes (R6.3): " + span.getAttributes());
    }

    @Test
    void aFailedChangeMarksTheSpanFailedByTheExceptionsClassOnly() {
        try (Tracing.Step step = tracing.consuming("shipping", paid(RECORDED))) {
            step.failed(new IllegalStateException("card 4111-1111 declined"));
        }
        SpanData span = exported.get(0);
        assertEquals(StatusCode.ERROR, span.getStatus().getStatusCode());
        assertFalse(span.toString().contains("4111"), "the exception's message is not in the span (R6.3): " + span);
    }

    @Test
    void aDeliveryWithoutAContextStartsATraceOfItsOwn() {
        try (Tracing.Step ignored = tracing.consuming("shipping", paid(null))) {
            assertTrue(Span.current().getSpanContext().isValid());
        }
        assertEquals(SpanContext.getInvalid().getSpanId(), exported.get(0).getParentSpanId(), "a root span");
    }

    @Test
    void thePublishersSpanIsARootLinkedToTheContextsItsEventsWereRecordedIn() {
        OutboundEvent traced = new OutboundEvent(EventId.next(), OutboxEvent.of("Order", "o-1", 1, "OrderPlaced", "{}"),
                OffsetDateTime.now(), 1, 1, false, Ordering.STRICT, RECORDED);
        OutboundEvent untraced = new OutboundEvent(EventId.next(), OutboxEvent.of("Order", "o-1", 2, "OrderPaid", "{}"),
                OffsetDateTime.now(), 1, 1);
        try (Tracing.Step step = tracing.sending(List.of(traced, untraced))) {
            step.outcome("delivered 2 of 2");
        }
        SpanData span = exported.get(0);
        assertEquals(SpanKind.PRODUCER, span.getKind());
        assertEquals(SpanContext.getInvalid().getSpanId(), span.getParentSpanId(), "a trace of its own");
        assertEquals(List.of(TRACE_ID + "/" + SPAN_ID), span.getLinks().stream().map(LinkData::getSpanContext)
                .map(c -> c.getTraceId() + "/" + c.getSpanId()).toList(), "linked to each traced event's recording");
    }

    @Test
    void withTheSdkOffNothingBecomesCurrentSoNothingIsPassedOn() {
        Tracing off = new OpenTelemetryTracing(OpenTelemetry.noop().getTracer("off"));
        try (Tracing.Step ignored = off.consuming("shipping", paid(RECORDED))) {
            assertFalse(Span.current().getSpanContext().isValid(), "an event the change records stores no context");
            assertEquals(Optional.empty(), off.current());
        }
    }

    @Test
    void aTracerThatThrowsNeverFailsTheOutbox() {
        Tracer broken = (Tracer) Proxy.newProxyInstance(Tracer.class.getClassLoader(), new Class<?>[] {Tracer.class},
                (proxy, method, args) -> {
                    throw new IllegalStateException("a misbehaving span processor");
                });
        Tracing failing = new OpenTelemetryTracing(broken);
        assertDoesNotThrow(() -> {
            try (Tracing.Step step = failing.consuming("shipping", paid(RECORDED))) {
                step.outcome("FIRST");
                step.failed(new IllegalStateException());
            }
            try (Tracing.Step step = failing.sending(List.of())) {
                step.outcome("delivered 0 of 0");
            }
        });
        assertSame(Tracing.Step.NONE, failing.consuming("shipping", paid(RECORDED)), "the step goes on untraced");
    }

    @Test
    void aSamplerThatDropsTheConsumersSpanStillPassesTheTraceOnUnsampled() {
        try (SdkTracerProvider sampledOut = SdkTracerProvider.builder().setSampler(Sampler.alwaysOff()).build()) {
            Tracing dropping = new OpenTelemetryTracing(sampledOut.get("test"));
            try (Tracing.Step ignored = dropping.consuming("shipping", paid(RECORDED))) {
                SpanContext current = Span.current().getSpanContext();
                assertEquals(TRACE_ID, current.getTraceId(), "still the recording request's trace");
                assertNotEquals(SPAN_ID, current.getSpanId(), "a span of its own, not the parent handed back");
                assertTrue(dropping.current().orElseThrow().traceParent().endsWith("-00"),
                        "what the change records goes on unsampled");
            }
        }
    }

    @Test
    void aSpanThatThrowsOnEveryCallNeverFailsTheOutbox() {
        InvocationHandler throwing = (proxy, method, args) -> {
            throw new IllegalStateException("a misbehaving span");
        };
        Span broken = (Span) Proxy.newProxyInstance(Span.class.getClassLoader(), new Class<?>[] {Span.class}, throwing);
        SpanBuilder builder = (SpanBuilder) Proxy.newProxyInstance(SpanBuilder.class.getClassLoader(),
                new Class<?>[] {SpanBuilder.class}, (proxy, method, args) -> method.getName().equals("startSpan")
                        ? broken : proxy);
        Tracer tracer = (Tracer) Proxy.newProxyInstance(Tracer.class.getClassLoader(), new Class<?>[] {Tracer.class},
                (proxy, method, args) -> builder);
        Tracing failing = new OpenTelemetryTracing(tracer);
        assertDoesNotThrow(() -> {
            try (Tracing.Step step = failing.consuming("shipping", paid(RECORDED))) {
                step.outcome("FIRST");
            }
            try (Tracing.Step step = failing.sending(List.of())) {
                step.outcome("delivered 0 of 0");
                step.failed(new IllegalStateException());
            }
        }, "after the send, a span that cannot end must not throw the send's results away");
        assertSame(Tracing.Step.NONE, failing.consuming("shipping", paid(RECORDED)));
        assertFalse(Span.current().getSpanContext().isValid(), "nothing left current on this thread");
    }

    @Test
    void aTraceStateOfMoreThan32MembersKeepsTheNewest32() {
        String members = IntStream.range(0, 40).mapToObj(i -> "v" + i + "=x").collect(Collectors.joining(","));
        SpanContext remote = OpenTelemetryTracing.remote(new TraceContext(RECORDED.traceParent(), members));
        assertEquals(32, remote.getTraceState().size());
        assertEquals("x", remote.getTraceState().get("v0"), "the newest (first) member is kept");
        assertNull(remote.getTraceState().get("v39"), "the oldest (last) is dropped");
    }

    @Test
    void aTraceContextReadFromAMessageMustBeAW3CTraceParent() {
        assertTrue(TraceContext.read("00-" + TRACE_ID + "-" + SPAN_ID + "-01", null).isPresent());
        assertEquals(Optional.empty(), TraceContext.read(null, "a=b"), "no header");
        assertEquals(Optional.empty(), TraceContext.read("garbage", null), "a damaged header is ignored, not fatal");
        assertEquals(Optional.empty(), TraceContext.read("00-" + "0".repeat(32) + "-" + SPAN_ID + "-01", null),
                "the all-zero trace id is invalid");
        assertEquals(Optional.empty(), TraceContext.read("00-" + TRACE_ID.toUpperCase() + "-" + SPAN_ID + "-01", null),
                "W3C ids are lower-case");
        assertEquals(Optional.empty(), TraceContext.read("ff-" + TRACE_ID + "-" + SPAN_ID + "-01", null),
                "version ff is invalid");
        for (String version : List.of("FF", "zz", "0g", ".0", "Ab")) {
            assertEquals(Optional.empty(), TraceContext.read(version + "-" + TRACE_ID + "-" + SPAN_ID + "-01", null),
                    "a version must be two lower-case hex digits other than ff: " + version);
        }
        assertEquals(Optional.of(new TraceContext("00-" + TRACE_ID + "-" + SPAN_ID + "-01", null)),
                TraceContext.read("01-" + TRACE_ID + "-" + SPAN_ID + "-01-later-fields", null),
                "a later version is read by its first four fields and passed on as 00");
        assertNull(new TraceContext("00-" + TRACE_ID + "-" + SPAN_ID + "-01", "x".repeat(513)).traceState(),
                "a trace state longer than the column is dropped whole");
    }
}
