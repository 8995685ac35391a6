package dev.outbox.internal.event;

import dev.outbox.EventId;
import org.junit.jupiter.api.Test;

import java.util.HashSet;
import java.util.Set;
import java.util.UUID;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class UuidV7Test {

    @Test
    void idsAreVersion7WithTheRfcVariant() {
        UUID id = UuidV7.next();
        assertEquals(7, id.version());
        assertEquals(2, id.variant(), "RFC 9562 variant (binary 10)");
    }

    @Test
    void idsCarryTheCurrentUnixMillisecond() {
        long before = System.currentTimeMillis();
        long stamp = UuidV7.millisOf(UuidV7.next());
        long after = System.currentTimeMillis();
        assertTrue(stamp >= before - 1 && stamp <= after + 1, stamp + " not within [" + before + ", " + after + "]");
    }

    @Test
    void idsFromOneJvmStrictlyIncreaseAndNeverRepeat() {
        Set<UUID> seen = new HashSet<>();
        UUID previous = UuidV7.next();
        for (int i = 0; i < 200_000; i++) {
            UUID next = UuidV7.next();
            // Compare as unsigned 128-bit numbers, which is how databases order uuid columns.
            int order = Long.compareUnsigned(next.getMostSignificantBits(), previous.getMostSignificantBits());
            if (order == 0) {
                order = Long.compareUnsigned(next.getLeastSignificantBits(), previous.getLeastSignificantBits());
            }
            assertTrue(order > 0, next + " does not follow " + previous);
            assertTrue(seen.add(next), "repeated id " + next);
            previous = next;
        }
    }

    @Test
    void eventIdsRoundTripThroughText() {
        EventId id = EventId.next();
        assertEquals(id, EventId.parse(id.toString()));
    }
}
