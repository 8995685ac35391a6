package dev.outbox.internal.inbox;

import org.junit.jupiter.api.Test;

import static dev.outbox.Ordering.INDEPENDENT;
import static dev.outbox.Ordering.STRICT;
import static dev.outbox.internal.inbox.VersionCheck.Verdict.APPLY;
import static dev.outbox.internal.inbox.VersionCheck.Verdict.BEHIND;
import static dev.outbox.internal.inbox.VersionCheck.Verdict.WAIT;
import static org.junit.jupiter.api.Assertions.assertEquals;

/** R5.7 as a pure decision: no clock in it, so no time can turn a wait into an application or a drop. */
class VersionCheckTest {

    @Test
    void theNextVersionIsApplied() {
        assertEquals(APPLY, VersionCheck.decide(STRICT, 0, 1), "version 1 of a new aggregate");
        assertEquals(APPLY, VersionCheck.decide(STRICT, 4, 5));
    }

    @Test
    void aStrictVersionAheadOfItsTurnWaitsHoweverFarAhead() {
        assertEquals(WAIT, VersionCheck.decide(STRICT, 2, 4));
        assertEquals(WAIT, VersionCheck.decide(STRICT, 0, 2), "version 2 before version 1 of a new aggregate");
        assertEquals(WAIT, VersionCheck.decide(STRICT, 0, 1_000_000));
    }

    @Test
    void aVersionAtOrBelowTheHighWaterMarkIsBehindForTheInboxToTellDuplicateFromFork() {
        assertEquals(BEHIND, VersionCheck.decide(STRICT, 5, 3));
        assertEquals(BEHIND, VersionCheck.decide(STRICT, 5, 5), "another event at a passed version: maybe a fork");
        assertEquals(BEHIND, VersionCheck.decide(INDEPENDENT, 5, 4), "every version up to the mark was processed");
    }

    /** Issue 16 item 3: independent types may arrive out of order by design; they never wait. */
    @Test
    void anIndependentTypeIsAppliedAheadOfItsTurn() {
        assertEquals(APPLY, VersionCheck.decide(INDEPENDENT, 1, 3));
        assertEquals(APPLY, VersionCheck.decide(INDEPENDENT, 0, 7));
    }
}
