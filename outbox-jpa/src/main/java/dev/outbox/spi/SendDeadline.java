package dev.outbox.spi;

import java.time.Duration;

/**
 * When a batch's lease runs out, on this JVM's monotonic clock, started before the claim so it passes no later
 * than the lease the database granted (R4.3: a send must not outlive its lease, or a takeover sends it again
 * while it is still on its way). Two marks: no event is handed to a broker after {@code handOverBy} (a fifth of
 * the lease stays for the broker's commit and the confirm), and a send that may take a known time starts only if
 * it ends before {@code leaseEnds}. Events not sent for either reason answer {@link #missed()}.
 */
public record SendDeadline(long handOverBy, long leaseEnds) {

    /** The error class of an event not sent because the lease was running out: due again at once. */
    public static final String LEASE_DEADLINE = "LeaseDeadline";

    /** The deadline of a lease that starts now. */
    public static SendDeadline forLease(Duration lease) {
        long start = System.nanoTime();
        return new SendDeadline(start + lease.multipliedBy(4).dividedBy(5).toNanos(), start + lease.toNanos());
    }

    /** A deadline {@code left} from now for both marks: tests and tools. */
    public static SendDeadline in(Duration left) {
        long end = System.nanoTime() + left.toNanos();
        return new SendDeadline(end, end);
    }

    /** For tools and tests that send outside a lease. */
    public static SendDeadline never() {
        return in(Duration.ofDays(365));
    }

    /** Whether no more events may be handed to a broker. */
    public boolean passed() {
        return System.nanoTime() - handOverBy >= 0; // overflow-safe comparison of nanoTime values
    }

    /** Whether a send that may take up to {@code longest} ends before the lease does. */
    public boolean leaves(Duration longest) {
        return leaseEnds - (System.nanoTime() + longest.toNanos()) > 0;
    }

    public SendResult missed() {
        return new SendResult.TransientFailure(LEASE_DEADLINE);
    }
}
