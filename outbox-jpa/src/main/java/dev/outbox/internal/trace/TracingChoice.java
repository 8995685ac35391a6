package dev.outbox.internal.trace;

import dev.outbox.internal.logging.CoreMessages;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.event.Startup;
import jakarta.enterprise.inject.Produces;

import java.util.logging.Logger;

/**
 * Decides once, at start, how the outbox traces (R6.7): through OpenTelemetry when the server lets the application
 * see its API and has an OpenTelemetry bean (Liberty with {@code mpTelemetry-2.1}, WildFly with its OpenTelemetry
 * subsystems), not at all otherwise. Whether spans are exported, sampled or dropped is the server's setting
 * ({@code otel.sdk.disabled}, {@code otel.traces.exporter}). A failure to set tracing up is logged and leaves the
 * outbox untraced: tracing never stops the outbox.
 */
@ApplicationScoped
public class TracingChoice {

    private static final Logger LOG = Logger.getLogger(TracingChoice.class.getName());
    private static final String API_CLASS = "io.opentelemetry.api.trace.Span";

    private Tracing chosen;

    /** Decides at start, so the log says it then and the first business transaction pays nothing for it. */
    void decideAtStart(@Observes Startup startup) {
        chosen();
    }

    @Produces
    @ApplicationScoped
    Tracing tracing() {
        return chosen();
    }

    synchronized Tracing chosen() {
        if (chosen == null) {
            chosen = decide();
        }
        return chosen;
    }

    private static Tracing decide() {
        if (!apiVisible()) {
            CoreMessages.TRACING_NO_API.log(LOG,
                    () -> "tracing: the server gives the application no OpenTelemetry API; events carry no trace context");
            return Tracing.NONE;
        }
        try {
            return OpenTelemetryTracers.tracing().orElseGet(() -> {
                CoreMessages.TRACING_NO_BEAN.log(LOG,
                        () -> "tracing: the server has no OpenTelemetry bean; events carry no trace context");
                return Tracing.NONE;
            });
        } catch (RuntimeException | LinkageError e) {
            CoreMessages.TRACING_SETUP_FAILED.log(LOG,
                    () -> "tracing: setting up OpenTelemetry failed (" + e.getClass().getName() + "); the outbox"
                    + " runs untraced");
            return Tracing.NONE;
        }
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
