package dev.outbox.schema;

import dev.outbox.transport.OutboundEvent;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.UUID;

/** PostgreSQL 12 and later. */
public final class PostgreSqlDialect implements Dialect {

    @Override
    public String name() {
        return "postgresql";
    }

    /**
     * One statement: lock due rows with SKIP LOCKED, so concurrent publishers claim disjoint batches without
     * waiting on each other (R4.1), lease them and return them. The transaction around it is short and
     * commits before any send.
     */
    @Override
    public List<OutboundEvent> claim(Connection connection, ClaimRequest request) throws SQLException {
        String sql = "UPDATE outbox_event SET claimed_by = ?, lease_version = lease_version + 1, lease_until = ?,"
                + " next_attempt_at = ?, attempts = attempts + 1"
                + " WHERE event_id IN (SELECT e.event_id " + Dialect.candidates(request) + " FOR UPDATE SKIP LOCKED)"
                + " RETURNING " + CLAIMED_COLUMNS;
        try (PreparedStatement claim = connection.prepareStatement(sql)) {
            claim.setString(1, request.claimer());
            claim.setObject(2, request.leaseUntil());
            claim.setObject(3, request.leaseUntil());
            Dialect.bindCandidates(claim, 4, request);
            try (ResultSet rs = claim.executeQuery()) {
                return Dialect.readClaimed(rs);
            }
        }
    }

    /** ON CONFLICT DO NOTHING: a duplicate inserts nothing and, unlike a failed INSERT, keeps the tx usable. */
    @Override
    public boolean markProcessed(Connection connection, String consumer, UUID eventId, String aggregateType,
                                 String aggregateId, Long aggregateVersion, OffsetDateTime now,
                                 OffsetDateTime retainUntil) throws SQLException {
        try (PreparedStatement insert = connection.prepareStatement("INSERT INTO processed_event (consumer, event_id,"
                + " aggregate_type, aggregate_id, aggregate_version, processed_at, retain_until)"
                + " VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (consumer, event_id) DO NOTHING")) {
            Dialect.bindMark(insert, consumer, eventId, aggregateType, aggregateId, aggregateVersion, now, retainUntil);
            return insert.executeUpdate() == 1;
        }
    }
}
