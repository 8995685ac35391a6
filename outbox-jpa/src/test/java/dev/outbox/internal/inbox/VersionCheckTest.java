package dev.outbox.internal.inbox;

import dev.outbox.Ordering;
import org.junit.jupiter.api.Test;

import java.time.Duration;

import static dev.outbox.Ordering.INDEPENDENT;
import static dev.outbox.Ordering.STRICT;
import static dev.outbox.internal.inbox.VersionCheck.Verdict.APPLY;
import static dev.outbox.internal.inbox.VersionCheck.Verdict.APPLY_AFTER_GAP;
import static dev.outbox.internal.inbox.VersionCheck.Verdict.HOLD;
import static dev.outbox.internal.inbox.VersionCheck.Verdict.STALE;
import static org.junit.jupiter.api.Assertions.assertEquals;

class VersionCheckTest {

    private static final Duration WINDOW = Duration.ofSeconds(2);

    private static VersionCheck.Verdict decide(Ordering ordering, long highWater, long version, long heldMillis) {
        return VersionCheck.decide(ordering, highWater, version, () -> Duration.ofMillis(heldMillis), WINDOW);
    }

    @Test
    void theNextVersionIsApplied() {
        assertEquals(APPLY, decide(STRICT, 0, 1, 0), "version 1 of a new aggregate");
        assertEquals(APPLY, decide(STRICT, 4, 5, 0));
    }

    @Test
    void aVersionAtOrBelowTheHighWaterMarkIsNeverAppliedAgain() {
        assertEquals(STALE, decide(STRICT, 5, 3, 0));
        assertEquals(STALE, decide(STRICT, 5, 5, 0), "another event at a passed version");
        assertEquals(STALE, decide(INDEPENDENT, 5, 4, 0), "every version up to the mark was processed");
    }

    @Test
    void aStrictGapIsHeldForTheWindowThenAppliedRatherThanDropped() {
        assertEquals(HOLD, decide(STRICT, 2, 4, 0));
        assertEquals(HOLD, decide(STRICT, 2, 4, 1999));
        assertEquals(APPLY_AFTER_GAP, decide(STRICT, 2, 4, 2000), "never a permanent stall");
        assertEquals(HOLD, decide(STRICT, 0, 2, 10), "version 2 before version 1 of a new aggregate waits too");
    }

    /** Issue 16 item 3: independent types may arrive out of order by design; they are never held or skipped. */
    @Test
    void anIndependentTypeIsAppliedAheadOfItsTurnWithoutAHold() {
        assertEquals(APPLY, decide(INDEPENDENT, 1, 3, 0));
        assertEquals(APPLY, decide(INDEPENDENT, 0, 7, 0));
    }
}
