package dev.outbox.example.orders.control;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import org.eclipse.microprofile.config.inject.ConfigProperty;

import java.util.Locale;

/**
 * Fault drills for the integration tests (R7.1): a request header asks a command to fail at a chosen point.
 * Off unless the server.xml variable {@code example.fault-drills} is true; production configs leave it off.
 */
@ApplicationScoped
public class FaultDrill {

    public static final String HEADER = "X-Fault-Drill";

    public enum Point {
        /** No drill. */
        NONE,
        /** Place: after the outbox row is written, make the order break a database check at commit. */
        BUSINESS_FAILS_AFTER_OUTBOX,
        /** Pay: record OrderPaid at the version OrderPlaced already holds, so the unique key rejects it. */
        REUSE_EVENT_VERSION
    }

    @Inject
    @ConfigProperty(name = "example.fault-drills", defaultValue = "false")
    boolean enabled;

    /** Whether drills are on: consumers use it to fail on purpose for drill-named customers. */
    public boolean enabled() {
        return enabled;
    }

    public Point requested(String header) {
        if (header == null || header.isBlank()) {
            return Point.NONE;
        }
        if (!enabled) {
            throw new IllegalArgumentException(HEADER + " is set but fault drills are off "
                    + "(server.xml variable example.fault-drills)");
        }
        try {
            return Point.valueOf(header.trim().toUpperCase(Locale.ROOT).replace('-', '_'));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(HEADER + " names no drill: " + header);
        }
    }
}
