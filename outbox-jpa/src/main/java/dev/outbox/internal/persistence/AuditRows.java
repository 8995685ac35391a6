package dev.outbox.internal.persistence;

import java.util.UUID;

/**
 * The statements on {@code outbox_audit}, the operators' audit trail (R6.6, R9.2).
 */
public final class AuditRows {

    public static final String AUDIT_INSERT = "INSERT INTO outbox_audit (audit_id, at, actor, action, event_id, request_id, detail)"
            + " VALUES (?, ?, ?, ?, ?, ?, ?)";

    /** The newest entries, of one event or of all; no typed null parameter, which MariaDB cannot cast. */
    public static String auditRecent(boolean oneEvent) {
        return "SELECT audit_id, at, actor, action, event_id, request_id, detail FROM outbox_audit"
                + (oneEvent ? " WHERE event_id = ?" : "") + " ORDER BY at DESC, audit_id FETCH FIRST ? ROWS ONLY";
    }

    private AuditRows() {
    }
}
