package dev.outbox.internal.persistence;

/**
 * Where an outbox row is in its delivery. A claim is not a state: a claimed row stays {@code PENDING} with a
 * claimer and a lease, and becomes due again when the lease runs out (R4.3).
 */
public enum DeliveryState {
    /** Not yet confirmed by the broker: due at {@code next_attempt_at}. */
    PENDING,
    /** The broker confirmed it with a verifiable message id (R4.2). */
    DELIVERED,
    /** A deterministic failure; waits for repair with the same event id (R4.5, R6.6). */
    PARKED
}
