package dev.outbox.internal.publish;

import java.util.List;
import java.util.function.Supplier;

/**
 * Where one publisher run spent its time: claim, send and confirm, summed over its batches. Logged at FINE at
 * the end of a run (enable {@code dev.outbox.internal.publish.Publisher=fine}), so an operator or the benchmark can see
 * whether the database or the broker limits the drain. Not thread-safe: one per run.
 */
final class RunProfile {

    private long claimNanos;
    private long sendNanos;
    private long confirmNanos;
    private int batches;
    private long events;
    private final long started = System.nanoTime();

    <T extends List<?>> T claim(Supplier<T> step) {
        long start = System.nanoTime();
        T claimed = step.get();
        claimNanos += System.nanoTime() - start;
        if (!claimed.isEmpty()) {
            batches++;
            events += claimed.size();
        }
        return claimed;
    }

    <T> T send(Supplier<T> step) {
        long start = System.nanoTime();
        try {
            return step.get();
        } finally {
            sendNanos += System.nanoTime() - start;
        }
    }

    void confirm(Runnable step) {
        long start = System.nanoTime();
        try {
            step.run();
        } finally {
            confirmNanos += System.nanoTime() - start;
        }
    }

    long events() {
        return events;
    }

    /** One line, fixed format (the benchmark parses it): counts and milliseconds per phase. */
    String describe() {
        return String.format("outbox run profile: events=%d batches=%d total_ms=%d claim_ms=%d send_ms=%d confirm_ms=%d",
                events, batches, millis(System.nanoTime() - started), millis(claimNanos), millis(sendNanos),
                millis(confirmNanos));
    }

    private static long millis(long nanos) {
        return nanos / 1_000_000;
    }
}
