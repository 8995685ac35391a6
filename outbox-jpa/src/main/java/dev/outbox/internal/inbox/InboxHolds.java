package dev.outbox.internal.inbox;

import dev.outbox.internal.persistence.InboxMarks;
import dev.outbox.EventId;
import dev.outbox.internal.persistence.Dialect;
import dev.outbox.internal.persistence.OutboxDataSource;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.transaction.Transactional;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.OffsetDateTime;

/**
 * Where a consumer's holds are kept (R5.7): one row per (consumer, event), since when by the database's clock, in
 * a transaction of its own, because the delivery that holds rolls back. So the gap window is measured from the
 * first hold whatever restarts or servers come between, and two consumers never share a hold.
 */
@ApplicationScoped
public class InboxHolds implements VersionGate.Holds {

    @Inject
    OutboxDataSource database;

    @Override
    @Transactional(Transactional.TxType.REQUIRES_NEW)
    public Duration heldFor(String consumer, EventId eventId) {
        try (Connection connection = database.connect()) {
            return heldFor(connection, database.dialect(), consumer, eventId);
        } catch (SQLException e) {
            throw new IllegalStateException("inbox hold failed for consumer " + consumer + ", event " + eventId, e);
        }
    }

    /** The hold's SQL on a connection of its own transaction: starts the hold once, answers its age. */
    public static Duration heldFor(Connection connection, Dialect dialect, String consumer, EventId eventId)
            throws SQLException {
        dialect.startHold(connection, consumer, eventId.value());
        try (PreparedStatement select = connection.prepareStatement(InboxMarks.HOLD_SINCE)) {
            select.setString(1, consumer);
            select.setObject(2, eventId.value());
            try (ResultSet rs = select.executeQuery()) {
                rs.next();
                return Duration.between(rs.getObject("held_since", OffsetDateTime.class),
                        rs.getObject("db_now", OffsetDateTime.class));
            }
        }
    }
}
