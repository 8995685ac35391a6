package dev.outbox.internal.trace;

import dev.outbox.InboxedEvent;
import dev.outbox.TraceContext;
import dev.outbox.spi.OutboundEvent;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanBuilder;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.TraceFlags;
import io.opentelemetry.api.trace.TraceState;
import io.opentelemetry.api.trace.TraceStateBuilder;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.Scope;

import java.util.List;
import java.util.Optional;

/**
 * Tracing through the OpenTelemetry API the server supplies (R6.7). The only class of the library that names it,
 * so a server without it never loads this class. Span attributes carry ids, types and versions, never a payload
 * or an aggregate's id (R6.3).
 */
public final class OpenTelemetryTracing implements Tracing {

    /** OpenTelemetry's default limit of links per span: a bigger batch links its first events only. */
    static final int MAX_LINKS = 128;

    static final AttributeKey<String> EVENT_ID = AttributeKey.stringKey("outbox.event.id");
    static final AttributeKey<String> EVENT_TYPE = AttributeKey.stringKey("outbox.event.type");
    static final AttributeKey<String> AGGREGATE_TYPE = AttributeKey.stringKey("outbox.aggregate.type");
    static final AttributeKey<Long> AGGREGATE_VERSION = AttributeKey.longKey("outbox.aggregate.version");
    static final AttributeKey<String> CONSUMER = AttributeKey.stringKey("outbox.consumer");
    static final AttributeKey<String> OUTCOME = AttributeKey.stringKey("outbox.outcome");
    static final AttributeKey<String> MESSAGE_ID = AttributeKey.stringKey("messaging.message.id");
    static final AttributeKey<String> OPERATION = AttributeKey.stringKey("messaging.operation.type");
    static final AttributeKey<Long> BATCH_SIZE = AttributeKey.longKey("messaging.batch.message_count");
    static final AttributeKey<String> ERROR_TYPE = AttributeKey.stringKey("error.type");

    private final Tracer tracer;

    public OpenTelemetryTracing(Tracer tracer) {
        this.tracer = tracer;
    }

    @Override
    public Optional<TraceContext> current() {
        SpanContext span = Span.current().getSpanContext();
        if (!span.isValid()) {
            return Optional.empty();
        }
        return Optional.of(new TraceContext("00-" + span.getTraceId() + "-" + span.getSpanId() + "-"
                + span.getTraceFlags().asHex(), state(span.getTraceState())));
    }

    @Override
    public Step sending(List<OutboundEvent> batch) {
        SpanBuilder builder = tracer.spanBuilder("outbox publish").setSpanKind(SpanKind.PRODUCER).setNoParent()
                .setAttribute(OPERATION, "send").setAttribute(BATCH_SIZE, (long) batch.size());
        int links = 0;
        for (OutboundEvent event : batch) {
            if (event.trace() != null && links < MAX_LINKS) {
                builder.addLink(remote(event.trace()));
                links++;
            }
        }
        return new OpenStep(builder.startSpan(), null);
    }

    @Override
    public Step consuming(String consumer, InboxedEvent event) {
        Context parent = event.trace() == null ? Context.root()
                : Context.root().with(Span.wrap(remote(event.trace())));
        SpanBuilder builder = tracer.spanBuilder(consumer + " process").setParent(parent)
                .setSpanKind(SpanKind.CONSUMER).setAttribute(OPERATION, "process").setAttribute(CONSUMER, consumer)
                .setAttribute(MESSAGE_ID, event.eventId().toString()).setAttribute(EVENT_ID, event.eventId().toString());
        if (event.eventType() != null) {
            builder.setAttribute(EVENT_TYPE, event.eventType());
        }
        if (event.aggregateType() != null) {
            builder.setAttribute(AGGREGATE_TYPE, event.aggregateType());
        }
        if (event.aggregateVersion() != null) {
            builder.setAttribute(AGGREGATE_VERSION, event.aggregateVersion());
        }
        Span span = builder.startSpan();
        return new OpenStep(span, span.makeCurrent());
    }

    /** The recording span as seen from another process. */
    static SpanContext remote(TraceContext trace) {
        TraceStateBuilder state = TraceState.builder();
        if (trace.traceState() != null) {
            String[] members = trace.traceState().split(",");
            // put() adds at the front: from the last member to the first keeps the W3C order (newest first).
            for (int i = members.length - 1; i >= 0; i--) {
                String member = members[i];
                int equals = member.indexOf('=');
                if (equals > 0) {
                    state.put(member.substring(0, equals).strip(), member.substring(equals + 1).strip());
                }
            }
        }
        return SpanContext.createFromRemoteParent(trace.traceId(), trace.spanId(),
                TraceFlags.fromHex(trace.flags(), 0), state.build());
    }

    /** The W3C list form of a trace state, null when it is empty. */
    private static String state(TraceState state) {
        if (state.isEmpty()) {
            return null;
        }
        StringBuilder list = new StringBuilder();
        state.forEach((key, value) -> list.append(list.isEmpty() ? "" : ",").append(key).append('=').append(value));
        return list.toString();
    }

    private record OpenStep(Span span, Scope scope) implements Step {

        @Override
        public void outcome(String outcome) {
            span.setAttribute(OUTCOME, outcome);
        }

        @Override
        public void failed(Throwable failure) {
            // R6.3: the class only; an exception's message may quote a payload.
            span.setStatus(StatusCode.ERROR, failure.getClass().getName());
            span.setAttribute(ERROR_TYPE, failure.getClass().getName());
        }

        @Override
        public void close() {
            if (scope != null) {
                scope.close();
            }
            span.end();
        }
    }
}
