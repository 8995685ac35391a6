package dev.outbox.internal.protocol;

import java.time.Duration;
import java.util.random.RandomGenerator;

/**
 * Capped exponential backoff with jitter (R4.4): attempt n waits between half and all of
 * {@code min(max, initial * 2^(n-1))}, so retries of many events spread out instead of storming the broker.
 */
public record Backoff(Duration initial, Duration max) {

    /** @param jitter the source of the spread (the server's thread-local random; a seeded one in the checker) */
    public Duration after(int attempts, RandomGenerator jitter) {
        long ceiling = max.toMillis();
        long exponential = initial.toMillis() << Math.min(Math.max(attempts - 1, 0), 30);
        long capped = exponential <= 0 ? ceiling : Math.min(ceiling, exponential);
        long jittered = capped / 2 + jitter.nextLong(capped / 2 + 1);
        return Duration.ofMillis(Math.max(1, jittered));
    }
}
