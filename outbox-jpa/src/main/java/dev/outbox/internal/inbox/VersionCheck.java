package dev.outbox.internal.inbox;

import dev.outbox.Ordering;

/**
 * Per-aggregate version handling at a consumer (R5.7), against the consumer's high-water mark of the aggregate
 * (every version up to it was applied, or passed over by an operator's audited skip). There is no timer in it: a
 * strict event whose earlier versions are missing waits, however long, and nothing at or below the mark is ever
 * applied again or dropped without a look at which event it is.
 */
public final class VersionCheck {

    /** Where one event stands, given what the consumer passed before. */
    public enum Verdict {
        /** The next version (all it follows is passed), or an independent type's above the mark: apply it now. */
        APPLY,
        /** A strict type whose earlier versions are missing: store it, acknowledge it, apply it in its turn. */
        WAIT,
        /**
         * At or below the mark: a duplicate, a version an operator skipped, or another event claiming a version the
         * consumer applied (a fork, R7.7). Which one the inbox tells from its marks, never from a clock.
         */
        BEHIND
    }

    private VersionCheck() {
    }

    /**
     * @param ordering  the event type's policy, as its message says
     * @param highWater the consumer's high-water mark of this aggregate (0: nothing passed yet)
     * @param version   this event's aggregate version
     * @param waitsFor  the version this event follows at this consumer: the one just before it, or, at a consumer
     *                  that receives only some types, the latest earlier version of those types (0: none)
     */
    public static Verdict decide(Ordering ordering, long highWater, long version, long waitsFor) {
        if (version <= highWater) {
            return Verdict.BEHIND;
        }
        if (waitsFor <= highWater || ordering == Ordering.INDEPENDENT) {
            return Verdict.APPLY;
        }
        return Verdict.WAIT;
    }

    /** At a consumer that receives every type: each version follows the one just before it. */
    public static Verdict decide(Ordering ordering, long highWater, long version) {
        return decide(ordering, highWater, version, version - 1);
    }
}
