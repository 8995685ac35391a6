package dev.outbox.internal.ops.audit;

import dev.outbox.internal.persistence.AuditRows;
import dev.outbox.internal.persistence.OutboxDataSource;
import dev.outbox.internal.publish.PublisherMessages;
import jakarta.ejb.Stateless;
import jakarta.ejb.TransactionAttribute;
import jakarta.ejb.TransactionAttributeType;
import jakarta.inject.Inject;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.logging.Logger;

/**
 * Who did what, when, to which event or replay request (R6.6, R9.2). An entry is written in the transaction of
 * the action it describes: an action that rolls back leaves no entry, and no action commits without one.
 * Details hold ids, counts, error classes and hashes, never a payload (R6.3).
 */
@Stateless
public class AuditTrail {

    private static final Logger LOG = Logger.getLogger(AuditTrail.class.getName());

    @Inject
    OutboxDataSource database;

    @TransactionAttribute(TransactionAttributeType.MANDATORY)
    public void record(String actor, String action, UUID eventId, UUID requestId, String detail) {
        try (Connection connection = database.connect();
             PreparedStatement insert = connection.prepareStatement(AuditRows.AUDIT_INSERT)) {
            insert.setObject(1, UUID.randomUUID());
            insert.setObject(2, OffsetDateTime.now(ZoneOffset.UTC));
            insert.setString(3, actor);
            insert.setString(4, action);
            insert.setObject(5, eventId);
            insert.setObject(6, requestId);
            insert.setString(7, detail.length() > 2000 ? detail.substring(0, 2000) : detail);
            insert.executeUpdate();
        } catch (SQLException e) {
            throw new IllegalStateException("cannot write the audit entry for " + action + " by " + actor, e);
        }
        PublisherMessages.ADMIN_ACTION.log(LOG,
                () -> "outbox admin: " + actor + " " + action + (eventId == null ? "" : " event " + eventId)
                + (requestId == null ? "" : " request " + requestId) + ": " + detail);
    }

    /** The newest entries first: all, of one event, of one actor, or of both (a null narrows nothing). */
    @TransactionAttribute(TransactionAttributeType.SUPPORTS)
    public List<AuditEntry> recent(UUID eventId, String actor, int limit) {
        try (Connection connection = database.connect();
             PreparedStatement select = connection.prepareStatement(AuditRows.auditRecent(eventId != null,
                     actor != null))) {
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
        } catch (SQLException e) {
            throw new IllegalStateException("cannot read the outbox audit trail", e);
        }
    }
}
