package dev.outbox.internal.protocol;

import dev.outbox.internal.persistence.DeliveryState;
import dev.outbox.internal.persistence.StoredEvents;

import java.time.Duration;
import java.util.List;
import java.util.UUID;

/**
 * The state changes of replay and repair (R6.6, R9.2-R9.4): an event is sent again only by putting its own row back
 * to pending, with its original event id, so the consumers' inboxes absorb what they applied (R9.3) and the
 * publisher's claims, leases, ordering and confirms do the rest. A change applies only to an event still in the
 * state it was chosen in: one claimed, delivered, parked again or cleaned up meanwhile is left as it is. The EJBs
 * around it hold the roles, the two-person rule and the audit; the protocol checker drives this same code.
 */
public final class Resend {

    private final StoredEvents events;

    public Resend(StoredEvents events) {
        this.events = events;
    }

    /**
     * R9.3: delivered events sent again, the k-th of those still delivered due k/{@code ratePerSecond} seconds from
     * now (R9.4's rate limit on the database's clock).
     */
    public StoredEvents.MadeDue replay(List<UUID> eventIds, int ratePerSecond) {
        return events.makeDue(DeliveryState.DELIVERED, eventIds, apart(ratePerSecond));
    }

    /** R6.6: parked events back in line with their own ids, spread out like a replay. */
    public StoredEvents.MadeDue resume(List<UUID> eventIds, int ratePerSecond) {
        return events.makeDue(DeliveryState.PARKED, eventIds, apart(ratePerSecond));
    }

    /** R6.6: one parked event back in line, due now; false when it is no longer parked. */
    public boolean resume(UUID eventId) {
        return !events.makeDue(DeliveryState.PARKED, List.of(eventId), Duration.ZERO).eventIds().isEmpty();
    }

    /**
     * R6.6: a parked event's body and schema version replaced (checked by the caller with the rules every recorded
     * event meets); it stays parked until resumed. False when it is no longer parked.
     */
    public boolean fix(UUID eventId, String payload, String payloadRef, int schemaVersion) {
        return events.fixParked(eventId, payload, payloadRef, schemaVersion);
    }

    private static Duration apart(int ratePerSecond) {
        if (ratePerSecond < 1) {
            throw new IllegalArgumentException("a re-send rate is at least 1 per second, not " + ratePerSecond);
        }
        return Duration.ofNanos(1_000_000_000L / ratePerSecond);
    }
}
