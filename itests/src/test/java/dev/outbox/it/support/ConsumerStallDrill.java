package dev.outbox.it.support;

import java.time.Duration;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

import static dev.outbox.it.support.Eventually.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Issue 19 item 3 on every server: a consumer that stops finishing records while more wait for it is named by
 * liveness within its stall window, and liveness is UP again once it caught up. The servers under test set
 * {@code outbox.health.consumer-stall} to 10 s; the example's loyalty drill holds the consumer for 25 s.
 */
public final class ConsumerStallDrill {

    /** The stall window the test servers set, plus reads of the lag (every 2 s) and the health call itself. */
    private static final Duration NAMED_WITHIN = Duration.ofSeconds(10 + 15);

    private ConsumerStallDrill() {
    }

    /**
     * @param stall starts the drill (the held record and records behind it) and answers whether all their effects
     *              are in
     */
    public static void stallsAndRecovers(ExampleService health, String consumer, Supplier<BooleanSupplier> stall) {
        ConsumerHealth before = ConsumerHealth.read(health);
        assertEquals(200, before.status(), "liveness UP before the drill: " + before.raw());
        assertTrue(before.waiting(consumer) >= 0, consumer + " is watched and its lag readable: " + before.raw());

        long start = System.nanoTime();
        BooleanSupplier caughtUp = stall.get();
        ConsumerHealth down = await(NAMED_WITHIN, "liveness DOWN naming " + consumer + " stalled",
                () -> ConsumerHealth.read(health), h -> h.status() == 503 && h.stalled(consumer));
        long namedMs = (System.nanoTime() - start) / 1_000_000;
        assertTrue(down.waiting(consumer) > 0, "a stall is records waiting: " + down.raw());
        down.data().keySet().stream().filter(k -> k.startsWith("stalled.")).forEach(k ->
                assertEquals("stalled." + consumer, k, "only the held consumer is named: " + down.raw()));

        ConsumerHealth up = await(Duration.ofSeconds(60), consumer + " caught up and liveness UP again",
                () -> caughtUp.getAsBoolean() ? ConsumerHealth.read(health) : null,
                h -> h != null && h.status() == 200 && h.waiting(consumer) == 0);
        assertFalse(up.stalled(consumer), up.raw());
        String since = "secondsSinceProgress." + consumer;
        assertTrue(up.data().containsKey(since) && up.data().getJsonNumber(since).longValue() < 60,
                "the consumer reports its attempts to the watch (progress within the last minute): " + up.raw());
        System.out.printf("consumer stall drill: %s named stalled %d ms after the drill started, UP again after %d ms%n",
                consumer, namedMs, (System.nanoTime() - start) / 1_000_000);
    }
}
