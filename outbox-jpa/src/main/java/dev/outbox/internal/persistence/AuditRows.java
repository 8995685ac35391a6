package dev.outbox.internal.persistence;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/**
 * The operators' audit trail, {@code outbox_audit} (R6.6, R9.2): written in the caller's transaction, so an action
 * that rolls back leaves no entry.
 */
@ApplicationScoped
public class AuditRows {

    static final String AUDIT_INSERT = "INSERT INTO outbox_audit (audit_id, at, actor, action, event_id, request_id, detail)"
            + " VALUES (?, ?, ?, ?, ?, ?, ?)";

    /** What a detail may hold at most; longer ones are cut, never refused (the action matters more). */
    static final int DETAIL_LIMIT = 2000;

    @Inject
    OutboxDataSource database;

    /** Writes the entries in one batch. */
    public void insert(List<AuditEntry> entries) {
        if (entries.isEmpty()) {
            return;
        }
        database.onConnection(connection -> insert(connection, entries),
                () -> "cannot write the audit entry for " + entries.get(0).action() + " by " + entries.get(0).actor());
    }

    /** The newest entries first: all, of one event, of one actor, or of both (a null narrows nothing). */
    public List<AuditEntry> recent(UUID eventId, String actor, int limit) {
        return database.onConnection(connection -> recent(connection, eventId, actor, limit),
                () -> "cannot read the outbox audit trail");
    }

    private static Void insert(Connection connection, List<AuditEntry> entries) throws SQLException {
        try (PreparedStatement insert = connection.prepareStatement(AUDIT_INSERT)) {
            for (AuditEntry entry : entries) {
                insert.setObject(1, entry.auditId());
                insert.setObject(2, entry.at());
                insert.setString(3, entry.actor());
                insert.setString(4, entry.action());
                insert.setObject(5, entry.eventId());
                insert.setObject(6, entry.requestId());
                String detail = entry.detail();
                insert.setString(7, detail.length() > DETAIL_LIMIT ? detail.substring(0, DETAIL_LIMIT) : detail);
                insert.addBatch();
            }
            insert.executeBatch();
        }
        return null;
    }

    private static List<AuditEntry> recent(Connection connection, UUID eventId, String actor, int limit)
            throws SQLException {
        try (PreparedStatement select = connection.prepareStatement(auditRecent(eventId != null, actor != null))) {
            int index = 1;
            if (eventId != null) {
                select.setObject(index++, eventId);
            }
            if (actor != null) {
                select.setString(index++, actor);
            }
            select.setInt(index, limit);
            List<AuditEntry> entries = new ArrayList<>();
            try (ResultSet rs = select.executeQuery()) {
                while (rs.next()) {
                    entries.add(new AuditEntry(rs.getObject("audit_id", UUID.class),
                            rs.getObject("at", OffsetDateTime.class), rs.getString("actor"), rs.getString("action"),
                            rs.getObject("event_id", UUID.class), rs.getObject("request_id", UUID.class),
                            rs.getString("detail")));
                }
            }
            return entries;
        }
    }

    /**
     * The newest entries, of one event, of one actor, both or all, in that parameter order; no typed null
     * parameter, which MariaDB cannot cast. By actor it reads the newest first on the time index: a rare read.
     */
    static String auditRecent(boolean oneEvent, boolean oneActor) {
        String where = oneEvent && oneActor ? " WHERE event_id = ? AND actor = ?"
                : oneEvent ? " WHERE event_id = ?" : oneActor ? " WHERE actor = ?" : "";
        return "SELECT audit_id, at, actor, action, event_id, request_id, detail FROM outbox_audit" + where
                + " ORDER BY at DESC, audit_id FETCH FIRST ? ROWS ONLY";
    }
}
