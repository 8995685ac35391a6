package dev.outbox.internal.trace;

import org.junit.jupiter.api.Test;

import java.lang.reflect.Constructor;
import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertSame;

/**
 * R6.7 where the server gives the application no OpenTelemetry API (a Liberty server without mpTelemetry, a WildFly
 * without its OpenTelemetry subsystems): the outbox's classes load and link, and tracing is {@link Tracing#NONE}.
 * The library's classes are loaded afresh by a class loader that cannot see {@code io.opentelemetry}.
 */
class TracingWithoutTheApiTest {

    /** Sees the test's class path except OpenTelemetry; the outbox's own classes come from the child below. */
    private static final class WithoutOpenTelemetry extends ClassLoader {
        WithoutOpenTelemetry(ClassLoader parent) {
            super(parent);
        }

        @Override
        protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
            if (name.startsWith("io.opentelemetry.") || name.startsWith("dev.outbox.")) {
                throw new ClassNotFoundException(name);
            }
            return super.loadClass(name, resolve);
        }
    }

    @Test
    void withoutTheApiTheOutboxLoadsAndTracesNothing() throws Exception {
        URL classes = Tracing.class.getProtectionDomain().getCodeSource().getLocation();
        try (URLClassLoader loader = new URLClassLoader(new URL[] {classes},
                new WithoutOpenTelemetry(getClass().getClassLoader()))) {
            for (String name : List.of("dev.outbox.internal.record.EventRecording", "dev.outbox.internal.inbox.InboxAttempt",
                    "dev.outbox.internal.persistence.Claims", "dev.outbox.InboxedEvent", "dev.outbox.spi.OutboundEvent",
                    "dev.outbox.TraceContext", "dev.outbox.OutboxHeaders", "dev.outbox.internal.trace.TracingChoice",
                    "dev.outbox.internal.trace.Tracing", "dev.outbox.Inbox")) {
                Class<?> type = Class.forName(name, true, loader); // loads, links, initialises
                // What CDI's scanning reads of a bean class: a signature that names a missing type fails here.
                type.getDeclaredFields();
                type.getDeclaredMethods();
                type.getDeclaredConstructors();
            }
            Class<?> choice = Class.forName(TracingChoice.class.getName(), true, loader);
            Constructor<?> create = choice.getDeclaredConstructor();
            Method chosen = choice.getDeclaredMethod("chosen");
            chosen.setAccessible(true);
            Object tracing = chosen.invoke(create.newInstance());
            Object none = Class.forName(Tracing.class.getName(), true, loader).getField("NONE").get(null);
            assertSame(none, tracing, "no OpenTelemetry API: the outbox traces nothing");
        }
    }
}
