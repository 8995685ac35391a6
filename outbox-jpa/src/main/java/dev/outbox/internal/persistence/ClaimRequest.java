package dev.outbox.internal.persistence;

import dev.outbox.Ordering;

import java.time.Duration;
import java.util.Set;

/**
 * One claim: up to {@code limit} due rows for {@code claimer}, each leased for {@code lease} (R4.1). It carries no
 * time of the claimer's: what is due and when a lease ends are read on the database's clock, one clock for every
 * server (a server whose clock runs ahead would see the others' leases as run out and send everything again).
 *
 * @param strictByDefault whether event types are strictly ordered unless listed in {@code exceptions}
 * @param exceptions      the event types whose policy differs from the default (R4.6)
 */
public record ClaimRequest(String claimer, int limit, Duration lease, boolean strictByDefault, Set<String> exceptions) {

    /** The policy the claimed event's type has here, sent with it (R4.6). */
    public Ordering orderingOf(String eventType) {
        return strictByDefault != exceptions.contains(eventType) ? Ordering.STRICT : Ordering.INDEPENDENT;
    }
}
