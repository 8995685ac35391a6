package dev.outbox.internal.trace;

import dev.outbox.InboxedEvent;
import dev.outbox.TraceContext;
import dev.outbox.internal.logging.CoreMessages;
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
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.logging.Logger;

/**
 * Tracing through the OpenTelemetry API the server supplies (R6.7). With {@link OpenTelemetryTracers}, the only
 * classes of the library that name it, so a server without it never loads them. Span attributes carry ids, types
 * and versions, never a payload or an aggregate's id (R6.3).
 *
 * <p>Fail-safe: tracing is an observer of the outbox, never a party to it. Whatever the tracer throws is caught
 * here, reported once, and the step goes on untraced: a misbehaving sampler or span processor must not fail a
 * business transaction, stall the publisher after a send, or turn a committed inbox attempt into a failure.
 */
public final class OpenTelemetryTracing implements Tracing {

    private static final Logger LOG = Logger.getLogger(OpenTelemetryTracing.class.getName());

    /** OpenTelemetry's default limit of links per span: a bigger batch links its first events only. */
    static final int MAX_LINKS = 128;
    /** W3C's limit of members in a {@code tracestate}. */
    static final int MAX_STATE_MEMBERS = 32;

    static final AttributeKey<String> EVENT_ID = AttributeKey.stringKey("outbox.event.id");
    static final AttributeKey<String> EVENT_TYPE = AttributeKey.stringKey("outbox.event.type");
    static final AttributeKey<String> AGGREGATE_TYPE = AttributeKey.stringKey("outbox.aggregate.type");
    static final AttributeKey<Long> AGGREGATE_VERSION = AttributeKey.longKey("outbox.aggregate.version");
    static final AttributeKey<String> CONSUMER = AttributeKey.stringKey("outbox.consumer");
    static final AttributeKey<String> OUTCOME = AttributeKey.stringKey("outbox.outcome");
    static final AttributeKey<String> OPERATION = AttributeKey.stringKey("messaging.operation.type");
    static final AttributeKey<Long> BATCH_SIZE = AttributeKey.longKey("messaging.batch.message_count");
    static final AttributeKey<String> ERROR_TYPE = AttributeKey.stringKey("error.type");

    private final Tracer tracer;
    private final AtomicBoolean reported = new AtomicBoolean();

    public OpenTelemetryTracing(Tracer tracer) {
        this.tracer = tracer;
    }

    @Override
    public Optional<TraceContext> current() {
        try {
            SpanContext span = Span.current().getSpanContext();
            if (!span.isValid()) {
                return Optional.empty();
            }
            return Optional.of(new TraceContext("00-" + span.getTraceId() + "-" + span.getSpanId() + "-"
                    + span.getTraceFlags().asHex(), state(span.getTraceState())));
        } catch (Exception | LinkageError | AssertionError e) {
            report("reading the current span", e);
            return Optional.empty();
        }
    }

    @Override
    public Step sending(List<OutboundEvent> batch) {
        try {
            SpanBuilder builder = tracer.spanBuilder("outbox publish").setSpanKind(SpanKind.PRODUCER).setNoParent()
                    .setAttribute(OPERATION, "send").setAttribute(BATCH_SIZE, (long) batch.size());
            int links = 0;
            for (OutboundEvent event : batch) {
                if (event.trace() != null && links < MAX_LINKS) {
                    builder.addLink(remote(event.trace()));
                    links++;
                }
            }
            return new OpenStep(builder.startSpan(), null, null);
        } catch (Exception | LinkageError | AssertionError e) {
            report("opening the publisher's span", e);
            return Step.NONE;
        }
    }

    @Override
    public Step consuming(String consumer, InboxedEvent event) {
        Span span = null;
        try {
            SpanContext recording = event.trace() == null ? null : remote(event.trace());
            Context parent = recording == null ? Context.root() : Context.root().with(Span.wrap(recording));
            SpanBuilder builder = tracer.spanBuilder(consumer + " process").setParent(parent)
                    .setSpanKind(SpanKind.CONSUMER).setAttribute(OPERATION, "process")
                    .setAttribute(CONSUMER, consumer).setAttribute(EVENT_ID, event.eventId().toString());
            if (event.eventType() != null) {
                builder.setAttribute(EVENT_TYPE, event.eventType());
            }
            if (event.aggregateType() != null) {
                builder.setAttribute(AGGREGATE_TYPE, event.aggregateType());
            }
            if (event.aggregateVersion() != null) {
                builder.setAttribute(AGGREGATE_VERSION, event.aggregateVersion());
            }
            span = builder.startSpan();
            if (!span.getSpanContext().isValid() || recording != null && !span.isRecording()
                    && span.getSpanContext().getSpanId().equals(recording.getSpanId())) {
                // A tracer with its SDK off hands the parent back: making it current would pass the upstream
                // context on to events this change records, and tracing off must leave no header.
                end(span);
                return Step.NONE;
            }
            Context before = Context.current();
            return new OpenStep(span, span.makeCurrent(), before);
        } catch (Exception | LinkageError | AssertionError e) {
            report("opening a consumer's span", e);
            end(span);
            return Step.NONE;
        }
    }

    private void end(Span span) {
        if (span != null) {
            try {
                span.end();
            } catch (Exception | LinkageError | AssertionError e) {
                report("ending a span", e);
            }
        }
    }

    /** The recording span as seen from another process. */
    static SpanContext remote(TraceContext trace) {
        TraceStateBuilder state = TraceState.builder();
        if (trace.traceState() != null) {
            List<String> members = java.util.Arrays.stream(trace.traceState().split(","))
                    .filter(m -> m.indexOf('=') > 0 && !m.isBlank()).limit(MAX_STATE_MEMBERS).toList();
            // put() adds at the front: from the last kept member to the first keeps W3C's order (newest first),
            // and a list over W3C's 32 members loses its oldest, as W3C says.
            for (int i = members.size() - 1; i >= 0; i--) {
                String member = members.get(i);
                int equals = member.indexOf('=');
                state.put(member.substring(0, equals).strip(), member.substring(equals + 1).strip());
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

    /** Reports a tracer's failure once per application, by class only (its message may quote anything, R6.3). */
    private void report(String what, Throwable e) {
        if (reported.compareAndSet(false, true)) {
            CoreMessages.TRACER_FAILED.log(LOG,
                    () -> "tracing: the OpenTelemetry tracer failed " + what + " (" + e.getClass().getName()
                    + "); the outbox goes on without that span, and reports no further tracer failure");
        }
    }

    private final class OpenStep implements Step {

        private final Span span;
        private final Scope scope;
        /** The context current before this span became current: put back should the scope fail to close. */
        private final Context before;

        OpenStep(Span span, Scope scope, Context before) {
            this.span = span;
            this.scope = scope;
            this.before = before;
        }

        @Override
        public void outcome(String outcome) {
            try {
                span.setAttribute(OUTCOME, outcome);
            } catch (Exception | LinkageError | AssertionError e) {
                report("recording an outcome", e);
            }
        }

        @Override
        public void failed(Throwable failure) {
            try {
                // R6.3: the class only; an exception's message may quote a payload.
                span.setStatus(StatusCode.ERROR, failure.getClass().getName());
                span.setAttribute(ERROR_TYPE, failure.getClass().getName());
            } catch (Exception | LinkageError | AssertionError e) {
                report("recording a failure", e);
            }
        }

        /** A consumer's span must not stay current on a pooled thread: later events there would carry it. */
        private void restore() {
            try {
                if (before != null && Context.current() != before) {
                    before.makeCurrent(); // its scope is dropped on purpose: this thread goes back to before
                }
            } catch (Exception | LinkageError | AssertionError e) {
                report("restoring the context", e);
            }
        }

        @Override
        public void close() {
            try {
                if (scope != null) {
                    scope.close();
                }
            } catch (Exception | LinkageError | AssertionError e) {
                report("leaving a span's scope", e);
                restore();
            }
            end(span);
        }
    }
}
