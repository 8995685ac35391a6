package dev.outbox.internal.ops.metrics;

import dev.outbox.internal.inbox.InboxReceived;
import dev.outbox.internal.publish.BatchSent;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.event.Startup;
import jakarta.inject.Inject;

/**
 * The same meters as {@link MicroProfileMetrics}, on Micrometer: WildFly 39 dropped MicroProfile Metrics and
 * serves Micrometer's Prometheus registry instead (its micrometer subsystem, {@code :9990/metrics} in the
 * example's CLI script). Same series names and tags, so dashboards and alerts work on both servers (WildFly adds
 * a {@code WF_DEPLOYMENT} tag).
 *
 * <p>Where the server has no Micrometer (Open Liberty) this bean stays idle. No field or signature of it names a
 * Micrometer type ({@link MicrometerMeters} does the work), because Open Liberty warns at every start about a
 * bean whose fields it cannot read (CWNEN0047W).
 */
@ApplicationScoped
public class MicrometerMetrics {

    private static final boolean MICROMETER = present("io.micrometer.core.instrument.MeterRegistry");

    @Inject
    BacklogCache cache;

    /** Null where the server has no Micrometer. */
    private volatile MicrometerMeters meters;

    void start(@Observes Startup startup) {
        if (MICROMETER) {
            meters = MicrometerMeters.start(cache);
        }
    }

    void sent(@Observes BatchSent batch) {
        MicrometerMeters known = meters;
        if (known != null) {
            known.sent(batch);
        }
    }

    void received(@Observes InboxReceived received) {
        MicrometerMeters known = meters;
        if (known != null) {
            known.received(received);
        }
    }

    private static boolean present(String className) {
        try {
            Class.forName(className, false, MicrometerMetrics.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException | LinkageError absent) {
            return false;
        }
    }
}
