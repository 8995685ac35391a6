package dev.outbox.internal.persistence;


/**
 * The statements on {@code outbox_audit}, the operators' audit trail (R6.6, R9.2).
 */
public final class AuditRows {

    public static final String AUDIT_INSERT = "INSERT INTO outbox_audit (audit_id, at, actor, action, event_id, request_id, detail)"
            + " VALUES (?, ?, ?, ?, ?, ?, ?)";

    /**
     * The newest entries, of one event, of one actor, both or all, in that parameter order; no typed null
     * parameter, which MariaDB cannot cast. By actor it reads the newest first on the time index: a rare read.
     */
    public static String auditRecent(boolean oneEvent, boolean oneActor) {
        String where = oneEvent && oneActor ? " WHERE event_id = ? AND actor = ?"
                : oneEvent ? " WHERE event_id = ?" : oneActor ? " WHERE actor = ?" : "";
        return "SELECT audit_id, at, actor, action, event_id, request_id, detail FROM outbox_audit" + where
                + " ORDER BY at DESC, audit_id FETCH FIRST ? ROWS ONLY";
    }

    private AuditRows() {
    }
}
