package dev.outbox.internal.event;

import java.security.SecureRandom;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;

/**
 * UUID version 7 (RFC 9562): 48 bits of Unix milliseconds, then 74 random bits. Ids made by one JVM are
 * strictly increasing: within one millisecond the 12-bit {@code rand_a} field counts up (RFC 9562 method 1),
 * so a B-tree on the id grows at its right edge. Business order never comes from these ids (R2.3); they only
 * keep the primary-key index compact.
 */
public final class UuidV7 {

    private static final int COUNTER_BITS = 12;
    private static final long COUNTER_MASK = (1L << COUNTER_BITS) - 1;

    /** Milliseconds in the high bits, the per-millisecond counter in the low 12 bits. */
    private static final AtomicLong LAST = new AtomicLong(seed());

    private UuidV7() {
    }

    public static UUID next() {
        long stamp = LAST.updateAndGet(UuidV7::advance);
        long millis = stamp >>> COUNTER_BITS;
        long counter = stamp & COUNTER_MASK;
        long msb = (millis << 16) | (0x7L << 12) | counter;
        long lsb = (ThreadLocalRandom.current().nextLong() & 0x3FFF_FFFF_FFFF_FFFFL) | 0x8000_0000_0000_0000L;
        return new UUID(msb, lsb);
    }

    /** The Unix milliseconds a version 7 id was made at. */
    public static long millisOf(UUID id) {
        if (id.version() != 7) {
            throw new IllegalArgumentException("not a version 7 UUID: " + id);
        }
        return id.getMostSignificantBits() >>> 16;
    }

    private static long advance(long last) {
        long now = System.currentTimeMillis() << COUNTER_BITS;
        if (now > last) {
            // A fresh millisecond starts the counter at a random point in its lower half, so ids of two JVMs
            // in the same millisecond rarely share a prefix, and there is room left to count up.
            return now | ThreadLocalRandom.current().nextLong(COUNTER_MASK >>> 1);
        }
        // Same millisecond (or the clock stepped back): count up; an overflow borrows the next millisecond.
        return last + 1;
    }

    private static long seed() {
        return (System.currentTimeMillis() << COUNTER_BITS) | (new SecureRandom().nextInt() & (COUNTER_MASK >>> 1));
    }
}
