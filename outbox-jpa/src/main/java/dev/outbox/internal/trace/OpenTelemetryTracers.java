package dev.outbox.internal.trace;

import io.opentelemetry.api.GlobalOpenTelemetry;
import io.opentelemetry.api.OpenTelemetry;
import jakarta.enterprise.inject.Instance;
import jakarta.enterprise.inject.spi.CDI;

/**
 * Finds the server's OpenTelemetry: the CDI bean MicroProfile Telemetry and WildFly's subsystem provide, else the
 * global instance. Kept apart from {@link TracingChoice} so that class never names an OpenTelemetry type and loads
 * where the API is missing.
 */
final class OpenTelemetryTracers {

    static final String INSTRUMENTATION = "dev.outbox";

    private OpenTelemetryTracers() {
    }

    static Tracing tracing() {
        Instance<OpenTelemetry> bean = CDI.current().select(OpenTelemetry.class);
        OpenTelemetry openTelemetry = bean.isResolvable() ? bean.get() : GlobalOpenTelemetry.get();
        return new OpenTelemetryTracing(openTelemetry.getTracer(INSTRUMENTATION));
    }
}
