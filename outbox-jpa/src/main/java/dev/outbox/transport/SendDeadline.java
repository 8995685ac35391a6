package dev.outbox.transport;

import java.time.Duration;

/**
 * When a batch's lease runs out, on this JVM's monotonic clock: a transport hands no event to the broker past it
 * and answers {@link #missed()} for the rest, so no send outlives the lease and races a takeover (R4.3). The
 * publisher starts it before its claim, so it passes no later than the lease the database granted.
 */
public record SendDeadline(long nanoTime) {

    /** The error class of an event not sent because the lease was running out: retried like any transient one. */
    public static final String LEASE_DEADLINE = "LeaseDeadline";

    public static SendDeadline in(Duration left) {
        return new SendDeadline(System.nanoTime() + left.toNanos());
    }

    /** For tools and tests that send outside a lease. */
    public static SendDeadline never() {
        return in(Duration.ofDays(365));
    }

    public boolean passed() {
        return System.nanoTime() - nanoTime >= 0; // overflow-safe comparison of nanoTime values
    }

    public SendResult missed() {
        return new SendResult.TransientFailure(LEASE_DEADLINE);
    }
}
