package dev.outbox;

import dev.outbox.internal.failure.Causes;

/**
 * Tells a database that is away (a restart, a failover, a network cut) from a change that fails: the outbox's own
 * reading of a failure's cause chain (SQLSTATE class 08, PostgreSQL's shutdown codes, H2's own connection codes;
 * deadlocks, serialization failures and MariaDB's lock wait timeout count too, as a transaction to try again),
 * for an application that answers its clients, such as a REST resource that turns an outage into
 * {@code 503 Service Unavailable} and a bug into {@code 500}. The outbox retries such a failure itself and never
 * parks an event for it (R5.5).
 */
public final class DatabaseOutage {

    private DatabaseOutage() {
    }

    /** True when {@code failure}, or any cause of it, says the database is away or gave the transaction up. */
    public static boolean isCauseOf(Throwable failure) {
        return failure != null && Causes.isDatabaseOutage(failure);
    }
}
