package dev.outbox.internal.persistence;

/**
 * The statements on {@code side_effect}, the ledger of external side effects (R5.4).
 */
public final class SideEffectRows {

    /** Records an attempt's start unless the effect has a record; never aborts the transaction on one. */
    public static final String INSERT_IF_ABSENT = "INSERT INTO side_effect (consumer, effect_key, event_id, effect, state,"
            + " attempts, updated_at) SELECT ?, ?, ?, ?, 'STARTED', 1, ? WHERE NOT EXISTS"
            + " (SELECT 1 FROM side_effect WHERE consumer = ? AND effect_key = ?)";
    public static final String READ_STATE = "SELECT state FROM side_effect WHERE consumer = ? AND effect_key = ?";
    public static final String RESTART = "UPDATE side_effect SET state = 'STARTED', attempts = attempts + 1, updated_at = ?"
            + " WHERE consumer = ? AND effect_key = ? AND state <> 'SUCCEEDED'";
    public static final String FINISH = "UPDATE side_effect SET state = ?, external_ref = ?, updated_at = ?"
            + " WHERE consumer = ? AND effect_key = ?";

    /**
     * R5.4: settled side-effect records (SUCCEEDED, FAILED) past the inbox retention, in small batches. A STARTED one
     * stays whatever its age: its outcome is unknown until someone reconciles it with the external service.
     */
    public static final String DELETE_SETTLED_SIDE_EFFECTS_BATCH = "DELETE FROM side_effect WHERE state <> 'STARTED' AND updated_at < ?"
            + " AND (consumer, effect_key) IN (SELECT consumer, effect_key FROM (SELECT consumer, effect_key FROM side_effect"
            + " WHERE state <> 'STARTED' AND updated_at < ? ORDER BY updated_at FETCH FIRST ? ROWS ONLY) batch)";

    /** External side effects recorded for some events (R5.4): a replay's dry run warns about them. */
    public static String sideEffectsOf(int count) {
        return "SELECT consumer, effect, state, COUNT(*) AS events FROM side_effect WHERE event_id IN (" + Sql.placeholders(count)
                + ") GROUP BY consumer, effect, state ORDER BY consumer, effect, state";
    }

    private SideEffectRows() {
    }
}
