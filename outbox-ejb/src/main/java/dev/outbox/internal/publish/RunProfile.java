package dev.outbox.internal.publish;

import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

/**
 * Where one publisher run spent its time: claim, send and confirm, summed over its batches. Logged at FINE at
 * the end of a run (enable {@code dev.outbox.internal.publish.Publisher=fine}), so an operator or the benchmark can see
 * whether the database or the broker limits the drain. One per run; its batches' sends and confirms may run on
 * several threads at once (outbox.publisher.workers), so each phase's time is a sum over batches, not wall time.
 */
final class RunProfile {

    private final AtomicLong claimNanos = new AtomicLong();
    private final AtomicLong sendNanos = new AtomicLong();
    private final AtomicLong confirmNanos = new AtomicLong();
    private final AtomicLong batches = new AtomicLong();
    private final AtomicLong events = new AtomicLong();
    private final long started = System.nanoTime();

    <T extends List<?>> T claim(Supplier<T> step) {
        long start = System.nanoTime();
        T claimed = step.get();
        claimNanos.addAndGet(System.nanoTime() - start);
        if (!claimed.isEmpty()) {
            batches.incrementAndGet();
            events.addAndGet(claimed.size());
        }
        return claimed;
    }

    <T> T send(Supplier<T> step) {
        long start = System.nanoTime();
        try {
            return step.get();
        } finally {
            sendNanos.addAndGet(System.nanoTime() - start);
        }
    }

    void confirm(Runnable step) {
        long start = System.nanoTime();
        try {
            step.run();
        } finally {
            confirmNanos.addAndGet(System.nanoTime() - start);
        }
    }

    long events() {
        return events.get();
    }

    /** One line, fixed format (the benchmark parses it): counts and milliseconds per phase. */
    String describe() {
        return String.format("outbox run profile: events=%d batches=%d total_ms=%d claim_ms=%d send_ms=%d confirm_ms=%d",
                events.get(), batches.get(), millis(System.nanoTime() - started), millis(claimNanos.get()),
                millis(sendNanos.get()), millis(confirmNanos.get()));
    }

    private static long millis(long nanos) {
        return nanos / 1_000_000;
    }
}
