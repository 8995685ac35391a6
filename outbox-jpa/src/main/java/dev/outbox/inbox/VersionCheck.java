package dev.outbox.inbox;

import java.time.Duration;

/**
 * Per-aggregate version handling at a consumer (R5.7): accept the next version, hold a gap briefly, then report
 * it and apply the newer event anyway (dropping it would stall the aggregate forever); never apply an older
 * version after a newer one (the state would go backwards).
 */
public final class VersionCheck {

    /** What to do with one event, given what the consumer applied before. */
    public enum Verdict {
        /** The next version (or no version to check): apply. */
        APPLY,
        /** Earlier versions are missing and the gap window is still open: roll back, let the broker redeliver. */
        HOLD,
        /** Earlier versions are still missing after the gap window: report the gap, then apply. */
        APPLY_AFTER_GAP,
        /** An older version than one already applied: record it as processed, do not apply. */
        STALE
    }

    private VersionCheck() {
    }

    /**
     * @param lastApplied the highest version of this aggregate the consumer processed, or null for none
     * @param version     this event's aggregate version, or null when the message carries none
     * @param heldFor     how long this event has been held so far
     * @param window      the gap window ({@code outbox.inbox.gap-window-ms})
     */
    public static Verdict decide(Long lastApplied, Long version, Duration heldFor, Duration window) {
        if (version == null) {
            return Verdict.APPLY;
        }
        long expected = lastApplied == null ? 1 : lastApplied + 1;
        if (version == expected) {
            return Verdict.APPLY;
        }
        if (version < expected) {
            return Verdict.STALE;
        }
        return heldFor.compareTo(window) < 0 ? Verdict.HOLD : Verdict.APPLY_AFTER_GAP;
    }
}
