package dev.outbox.internal.trace;

import dev.outbox.internal.logging.CoreMessages;
import io.opentelemetry.api.OpenTelemetry;
import jakarta.enterprise.inject.Instance;
import jakarta.enterprise.inject.spi.CDI;

import java.util.Optional;
import java.util.logging.Logger;

/**
 * Finds the server's OpenTelemetry: the CDI bean that MicroProfile Telemetry (Liberty) and the OpenTelemetry
 * subsystem (WildFly) provide. Kept apart from {@link TracingChoice} so that class never names an OpenTelemetry
 * type and loads where the API is missing. No fallback to {@code GlobalOpenTelemetry}: reading it would fix a no-op
 * global in the server's shared API for every other component.
 */
final class OpenTelemetryTracers {

    private static final Logger LOG = Logger.getLogger(OpenTelemetryTracers.class.getName());
    static final String INSTRUMENTATION = "dev.outbox";

    private OpenTelemetryTracers() {
    }

    static Optional<Tracing> tracing() {
        Instance<OpenTelemetry> bean = CDI.current().select(OpenTelemetry.class);
        if (!bean.isResolvable()) {
            return Optional.empty();
        }
        CoreMessages.TRACING_ON.log(LOG,
                () -> "tracing: through the server's OpenTelemetry; events recorded in a traced span carry its context"
                + " (spans are exported as the server's otel.* settings say)");
        return Optional.of(new OpenTelemetryTracing(bean.get().getTracer(INSTRUMENTATION)));
    }
}
