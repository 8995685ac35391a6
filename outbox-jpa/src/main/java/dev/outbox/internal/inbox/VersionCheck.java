package dev.outbox.internal.inbox;

import dev.outbox.Ordering;

import java.time.Duration;
import java.util.function.Supplier;

/**
 * Per-aggregate version handling at a consumer (R5.7), against the consumer's high-water mark of the aggregate
 * (every version up to it was applied, or passed over after a reported gap): apply the next version; hold a gap
 * of a strict type briefly, then report it and apply the newer event anyway (dropping it would stall the aggregate
 * forever); never apply a version at or below the mark (the state would go backwards). Independent types are
 * applied whatever their version (R4.6): they may arrive out of order by design.
 */
public final class VersionCheck {

    /** What to do with one event, given what the consumer passed before. */
    public enum Verdict {
        /** The next version, or an independent type's: apply. */
        APPLY,
        /** A strict type's earlier versions are missing and the gap window is open: roll back, redeliver later. */
        HOLD,
        /** A strict type's earlier versions are still missing after the gap window: report the gap, then apply. */
        APPLY_AFTER_GAP,
        /**
         * At or below the high-water mark, yet not marked: a replay of an event whose mark expired, or a version
         * passed over after a reported gap. Recorded as processed, reported, not applied.
         */
        STALE
    }

    private VersionCheck() {
    }

    /**
     * @param ordering  the event type's policy, as its message says
     * @param highWater the consumer's high-water mark of this aggregate (0: nothing passed yet)
     * @param version   this event's aggregate version
     * @param heldFor   how long this event has been held so far; asked only for a strict type's gap
     * @param window    the gap window ({@code outbox.inbox.gap-window-ms})
     */
    public static Verdict decide(Ordering ordering, long highWater, long version, Supplier<Duration> heldFor,
                                 Duration window) {
        if (version <= highWater) {
            return Verdict.STALE;
        }
        if (version == highWater + 1 || ordering == Ordering.INDEPENDENT) {
            return Verdict.APPLY;
        }
        return heldFor.get().compareTo(window) < 0 ? Verdict.HOLD : Verdict.APPLY_AFTER_GAP;
    }
}
