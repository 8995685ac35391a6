package dev.outbox.internal.ops.replay;

/**
 * What a request of the two-person rule does (R9.4), told by its stored selection: every re-send and every content
 * change one person makes without a second one counts against the same threshold, whichever way it was asked for.
 */
enum RequestKind {

    /** Delivered events sent again, or parked ones resumed in bulk by error class ({@link ReplaySelection}). */
    REPLAY,
    /** One parked event resumed ({@code resume:<event id>}). */
    RESUME,
    /** One parked event's body or schema version changed ({@code fix:<event id>}), the change stored with it. */
    REPAIR;

    static final String RESUME_PREFIX = "resume:";
    static final String REPAIR_PREFIX = "fix:";

    /** Its audit action for a step of the rule: REPLAY_APPROVED, RESUME_REQUESTED, REPAIR_REJECTED. */
    String audited(String step) {
        return name() + "_" + step;
    }

    static RequestKind of(String storedSelection) {
        if (storedSelection.startsWith(RESUME_PREFIX)) {
            return RESUME;
        }
        if (storedSelection.startsWith(REPAIR_PREFIX)) {
            return REPAIR;
        }
        return REPLAY;
    }
}
