package dev.outbox.internal.persistence;

import dev.outbox.spi.OutboundEvent;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/**
 * MariaDB 10.6 and later (InnoDB): {@code FOR UPDATE SKIP LOCKED} claims, event ids as text, times as UTC
 * {@code DATETIME(6)}. Its insert-if-absent statements are plain inserts whose duplicate-key error is taken as "it
 * exists": InnoDB rolls back only the failed statement, and waits for a rival's uncommitted row first, as
 * PostgreSQL's {@code ON CONFLICT DO NOTHING} does.
 */
public final class MariaDbDialect implements Dialect {

    /** MariaDB's and MySQL's error code for a duplicate key. */
    private static final int DUPLICATE_KEY = 1062;

    @Override
    public String name() {
        return "mariadb";
    }

    /**
     * Locks due rows with SKIP LOCKED, so concurrent publishers claim disjoint batches without waiting on each other
     * (R4.1), then leases them. Two statements, as MariaDB has no UPDATE ... RETURNING and allows no row limit in an
     * IN sub-query; the locks make them one step. The transaction around it is short and commits before any send.
     */
    @Override
    public List<OutboundEvent> claim(Connection connection, ClaimRequest request) throws SQLException {
        OffsetDateTime now = Sql.clock(connection);
        OffsetDateTime leaseUntil = now.plus(request.lease());
        List<UUID> ids = new ArrayList<>();
        try (PreparedStatement select = connection.prepareStatement("SELECT e.event_id " + Claims.candidates(request)
                + " FOR UPDATE SKIP LOCKED")) {
            Claims.bindCandidates(select, 1, request, now);
            try (ResultSet rs = select.executeQuery()) {
                while (rs.next()) {
                    ids.add(rs.getObject("event_id", UUID.class));
                }
            }
        }
        if (ids.isEmpty()) {
            return List.of();
        }
        try (PreparedStatement take = connection.prepareStatement("UPDATE outbox_event SET claimed_by = ?,"
                + " lease_version = lease_version + 1, lease_until = ?, next_attempt_at = ?, attempts = attempts + 1"
                + " WHERE event_id IN (" + Sql.placeholders(ids.size()) + ")")) {
            take.setString(1, request.claimer());
            take.setObject(2, leaseUntil);
            take.setObject(3, leaseUntil);
            for (int i = 0; i < ids.size(); i++) {
                take.setObject(i + 4, ids.get(i));
            }
            take.executeUpdate();
        }
        List<OutboundEvent> heads;
        try (PreparedStatement read = connection.prepareStatement("SELECT " + Claims.CLAIMED_COLUMNS
                + " FROM outbox_event WHERE event_id IN (" + Sql.placeholders(ids.size()) + ")")) {
            for (int i = 0; i < ids.size(); i++) {
                read.setObject(i + 1, ids.get(i));
            }
            try (ResultSet rs = read.executeQuery()) {
                heads = Claims.readClaimed(rs, request);
            }
        }
        return Claims.withRuns(connection, request, heads, now, leaseUntil);
    }

    @Override
    public boolean markProcessed(Connection connection, String consumer, UUID eventId, String aggregateType,
                                 String aggregateId, Long aggregateVersion, OffsetDateTime now,
                                 OffsetDateTime retainUntil) throws SQLException {
        try (PreparedStatement insert = connection.prepareStatement("INSERT INTO processed_event (consumer, event_id,"
                + " aggregate_type, aggregate_id, aggregate_version, processed_at, retain_until)"
                + " VALUES (?, ?, ?, ?, ?, ?, ?)")) {
            InboxMarks.bindMark(insert, consumer, eventId, aggregateType, aggregateId, aggregateVersion, now, retainUntil);
            return insertUnlessPresent(insert);
        }
    }

    @Override
    public void startHighWater(Connection connection, String consumer, String aggregateType, String aggregateId,
                               long highWater) throws SQLException {
        try (PreparedStatement insert = connection.prepareStatement("INSERT INTO inbox_high_water (consumer,"
                + " aggregate_type, aggregate_id, high_water) VALUES (?, ?, ?, ?)")) {
            insert.setString(1, consumer);
            insert.setString(2, aggregateType);
            insert.setString(3, aggregateId);
            insert.setLong(4, highWater);
            insertUnlessPresent(insert);
        }
    }

    @Override
    public void startHold(Connection connection, String consumer, UUID eventId) throws SQLException {
        try (PreparedStatement insert = connection.prepareStatement("INSERT INTO inbox_hold (consumer, event_id,"
                + " held_since) VALUES (?, ?, CURRENT_TIMESTAMP(6))")) {
            insert.setString(1, consumer);
            insert.setObject(2, eventId);
            insertUnlessPresent(insert);
        }
    }

    @Override
    public void startRequester(Connection connection, String requester) throws SQLException {
        try (PreparedStatement insert = connection.prepareStatement("INSERT INTO outbox_replay_requester (requester)"
                + " VALUES (?)")) {
            insert.setString(1, requester);
            insertUnlessPresent(insert);
        }
    }

    /** True when the row was inserted, false when its key existed: the transaction goes on either way. */
    private static boolean insertUnlessPresent(PreparedStatement insert) throws SQLException {
        try {
            return insert.executeUpdate() == 1;
        } catch (SQLException e) {
            if (e.getErrorCode() == DUPLICATE_KEY) {
                return false;
            }
            throw e;
        }
    }

    /**
     * Stops the start-up where acknowledged commits or the database's clock would not hold (R1.2, R4.3): InnoDB set
     * to write its log only once a second (a killed server loses that second's commits), connections that do not
     * keep instants as UTC, so the stored times and the database's clock would disagree by the servers' offset, or
     * an isolation level other than READ COMMITTED (under InnoDB's REPEATABLE READ a claim's gap locks make a second
     * publisher find nothing to claim, R4.1).
     */
    @Override
    public void verifyDurable(Connection connection, String dataSource) throws SQLException {
        if (connection.getTransactionIsolation() != Connection.TRANSACTION_READ_COMMITTED) {
            throw new IllegalStateException("the outbox datasource " + dataSource + " runs at JDBC isolation level "
                    + connection.getTransactionIsolation() + ": the outbox's SQL is written for READ COMMITTED (Liberty:"
                    + " isolationLevel=\"TRANSACTION_READ_COMMITTED\" on the dataSource; WildFly:"
                    + " --transaction-isolation=TRANSACTION_READ_COMMITTED)");
        }
        try (PreparedStatement select = connection.prepareStatement("SELECT @@innodb_flush_log_at_trx_commit AS flush,"
                + " @@session.time_zone AS zone, CAST(? AS CHAR) AS stored, CURRENT_TIMESTAMP(6) AS db_now")) {
            OffsetDateTime probe = OffsetDateTime.of(2000, 1, 1, 0, 0, 0, 0, ZoneOffset.UTC);
            select.setObject(1, probe);
            try (ResultSet rs = select.executeQuery()) {
                rs.next();
                if ("0".equals(rs.getString("flush"))) {
                    throw new IllegalStateException("the outbox datasource " + dataSource + " is a MariaDB server with"
                            + " innodb_flush_log_at_trx_commit=0: a killed server would lose commits it has already"
                            + " acknowledged. Set it to 1 (or 2, which survives a killed server but not a power loss)");
                }
                String zone = rs.getString("zone");
                String stored = rs.getString("stored");
                if (!("+00:00".equals(zone) || "UTC".equalsIgnoreCase(zone)) || stored == null
                        || !stored.startsWith("2000-01-01 00:00:00")) {
                    throw new IllegalStateException("the outbox datasource " + dataSource + " does not keep times in"
                            + " UTC (session time_zone " + zone + ", a UTC instant stored as " + stored + "): add"
                            + " connectionTimeZone=UTC&forceConnectionTimeZoneToSession=true&preserveInstants=true to"
                            + " its JDBC URL");
                }
            }
        }
    }
}
