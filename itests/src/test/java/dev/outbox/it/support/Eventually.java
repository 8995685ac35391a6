package dev.outbox.it.support;

import java.time.Duration;
import java.util.function.Supplier;

/** Waits for the asynchronous side (publisher, broker, consumer) without fixed sleeps. */
public final class Eventually {

    private Eventually() {
    }

    /** Polls until the condition holds; fails with the message and the last observed value after the timeout. */
    public static <T> T await(Duration timeout, String what, Supplier<T> observe, java.util.function.Predicate<T> done) {
        long deadline = System.nanoTime() + timeout.toNanos();
        T last = observe.get();
        while (!done.test(last)) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("after " + timeout.toMillis() + " ms still not " + what + "; last seen: " + last);
            }
            try {
                Thread.sleep(50);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError("interrupted while waiting for " + what);
            }
            last = observe.get();
        }
        return last;
    }
}
