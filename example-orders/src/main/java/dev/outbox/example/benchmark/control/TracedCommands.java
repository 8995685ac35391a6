package dev.outbox.example.benchmark.control;

import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Scope;
import jakarta.enterprise.inject.spi.CDI;

import java.util.function.Consumer;

/**
 * B1 with tracing on: each command runs in a span of its own, as it would inside a traced request, so the outbox
 * stores a trace context with every event it records (R6.7). Loaded only for a traced run: it names the
 * OpenTelemetry API, which the server supplies (Liberty's mpTelemetry, WildFly's OpenTelemetry subsystem).
 */
public final class TracedCommands {

    private TracedCommands() {
    }

    public static Consumer<String> traced(String name, Consumer<String> command) {
        Tracer tracer = CDI.current().select(Tracer.class).get();
        return order -> {
            Span span = tracer.spanBuilder(name).startSpan();
            try (Scope ignored = span.makeCurrent()) {
                command.accept(order);
            } finally {
                span.end();
            }
        };
    }
}
