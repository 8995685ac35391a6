package dev.outbox.internal.trace;

import dev.outbox.InboxedEvent;
import dev.outbox.TraceContext;
import dev.outbox.spi.OutboundEvent;

import java.util.List;
import java.util.Optional;

/**
 * Where the outbox meets distributed tracing (R6.7). Two implementations: {@link OpenTelemetryTracing} where the
 * server supplies the OpenTelemetry API (Liberty's mpTelemetry, WildFly's OpenTelemetry subsystem), and
 * {@link #NONE} where it does not. Which one runs is decided once, at start ({@link TracingChoice}).
 */
public interface Tracing {

    /** Records no context and opens no span: the outbox without a tracer costs nothing and sends no header. */
    Tracing NONE = new Tracing() {
        @Override
        public Optional<TraceContext> current() {
            return Optional.empty();
        }

        @Override
        public Step sending(List<OutboundEvent> batch) {
            return Step.NONE;
        }

        @Override
        public Step consuming(String consumer, InboxedEvent event) {
            return Step.NONE;
        }
    };

    /** The context of the span that is current on this thread, to keep with an event recorded now; empty if none. */
    Optional<TraceContext> current();

    /** Opens the publisher's span for one batch send, linked to the contexts its events were recorded in. */
    Step sending(List<OutboundEvent> batch);

    /**
     * Opens the inbox's span for one delivery of an event to a consumer, as a child of the span that recorded the
     * event, and makes it current until it is closed: the consumer's own spans nest under it.
     */
    Step consuming(String consumer, InboxedEvent event);

    /** A span in progress. */
    interface Step extends AutoCloseable {

        Step NONE = new Step() {
            @Override
            public void outcome(String outcome) {
            }

            @Override
            public void failed(Throwable failure) {
            }

            @Override
            public void close() {
            }
        };

        /** What the step came to, as an attribute (an inbox receipt: FIRST, DUPLICATE, ...). */
        void outcome(String outcome);

        /** Marks the span failed, naming the exception's class only: its message may quote a payload (R6.3). */
        void failed(Throwable failure);

        /** Ends the span. */
        @Override
        void close();
    }
}
