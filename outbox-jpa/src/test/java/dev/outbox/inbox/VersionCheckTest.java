package dev.outbox.inbox;

import org.junit.jupiter.api.Test;

import java.time.Duration;

import static dev.outbox.inbox.VersionCheck.Verdict.APPLY;
import static dev.outbox.inbox.VersionCheck.Verdict.APPLY_AFTER_GAP;
import static dev.outbox.inbox.VersionCheck.Verdict.HOLD;
import static dev.outbox.inbox.VersionCheck.Verdict.STALE;
import static org.junit.jupiter.api.Assertions.assertEquals;

class VersionCheckTest {

    private static final Duration WINDOW = Duration.ofSeconds(2);

    private static VersionCheck.Verdict decide(Long last, Long version, long heldMillis) {
        return VersionCheck.decide(last, version, Duration.ofMillis(heldMillis), WINDOW);
    }

    @Test
    void theNextVersionIsApplied() {
        assertEquals(APPLY, decide(null, 1L, 0), "version 1 of a new aggregate");
        assertEquals(APPLY, decide(4L, 5L, 0));
    }

    @Test
    void aMessageWithoutVersionIsNotChecked() {
        assertEquals(APPLY, decide(7L, null, 0));
    }

    @Test
    void anOlderVersionIsNeverAppliedAfterANewerOne() {
        assertEquals(STALE, decide(5L, 3L, 0));
        assertEquals(STALE, decide(5L, 5L, 0), "another event at an applied version");
    }

    @Test
    void aGapIsHeldForTheWindowThenAppliedRatherThanDropped() {
        assertEquals(HOLD, decide(2L, 4L, 0));
        assertEquals(HOLD, decide(2L, 4L, 1999));
        assertEquals(APPLY_AFTER_GAP, decide(2L, 4L, 2000), "never a permanent stall");
        assertEquals(HOLD, decide(null, 2L, 10), "version 2 before version 1 of a new aggregate waits too");
    }
}
