package dev.outbox.internal.trace;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Produces;

import java.util.logging.Logger;

/**
 * Decides once, at start, how the outbox traces (R6.7): through OpenTelemetry when the server lets the application
 * see its API (Liberty with {@code mpTelemetry-2.1}, WildFly with its OpenTelemetry subsystem), not at all
 * otherwise. Whether spans are exported, sampled or dropped is the server's setting ({@code otel.sdk.disabled},
 * {@code otel.traces.exporter}); with the SDK off no span is current, so no context is stored and no header sent.
 */
@ApplicationScoped
public class TracingChoice {

    private static final Logger LOG = Logger.getLogger(TracingChoice.class.getName());
    private static final String API_CLASS = "io.opentelemetry.api.trace.Span";

    @Produces
    @ApplicationScoped
    Tracing tracing() {
        if (!apiVisible()) {
            LOG.info("tracing: the server supplies no OpenTelemetry API to the application; events carry no trace"
                    + " context");
            return Tracing.NONE;
        }
        LOG.info("tracing: through the server's OpenTelemetry API; events recorded in a traced span carry its context"
                + " (spans are exported as the server's otel.* settings say)");
        return OpenTelemetryTracers.tracing();
    }

    private static boolean apiVisible() {
        try {
            Class.forName(API_CLASS, false, TracingChoice.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException | LinkageError e) {
            return false;
        }
    }
}
