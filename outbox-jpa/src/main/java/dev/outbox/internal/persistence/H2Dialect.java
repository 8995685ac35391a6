package dev.outbox.internal.persistence;

import dev.outbox.spi.OutboundEvent;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/** H2 2.x, the embedded default. H2 has no SKIP LOCKED: the claim is a lease by compare-and-set. */
public final class H2Dialect implements Dialect {

    @Override
    public String name() {
        return "h2";
    }

    /**
     * H2 writes its log up to WRITE_DELAY ms (500 by default) after a commit returns: a kill -9 in that time loses
     * acknowledged orders and their events (measured: 1,746 acknowledged, 1,669 kept). With WRITE_DELAY=0 every
     * acknowledged commit survives a process kill; a power loss is still not survived, as H2 does not fsync.
     */
    @Override
    public void verifyDataSource(Connection connection, String dataSource) throws SQLException {
        String url = connection.getMetaData().getURL();
        if (url != null && url.startsWith("jdbc:h2:mem:")) {
            return; // nothing survives a restart anyway: a test database
        }
        try (PreparedStatement select = connection.prepareStatement("SELECT SETTING_VALUE FROM INFORMATION_SCHEMA.SETTINGS"
                + " WHERE SETTING_NAME = 'WRITE_DELAY'"); ResultSet rs = select.executeQuery()) {
            if (rs.next() && !"0".equals(rs.getString("SETTING_VALUE"))) {
                throw new IllegalStateException("the outbox datasource " + dataSource + " is an H2 database with WRITE_DELAY="
                        + rs.getString("SETTING_VALUE") + ": a killed server process would lose commits it has already acknowledged."
                        + " Add ;WRITE_DELAY=0 to its JDBC URL (Liberty: server.xml variable h2.url; WildFly: the"
                        + " datasource's connection-url)");
            }
        }
    }

    /**
     * Reads due candidates without locking, then takes each with an update that only succeeds while the lease
     * version is unchanged: two publishers racing for one row get it once (R4.1, R7.4).
     */
    @Override
    public List<OutboundEvent> claim(Connection connection, ClaimRequest request) throws SQLException {
        OffsetDateTime now = Sql.clock(connection);
        OffsetDateTime leaseUntil = now.plus(request.lease());
        List<UUID> ids = new ArrayList<>();
        List<Long> versions = new ArrayList<>();
        try (PreparedStatement select = connection.prepareStatement(
                "SELECT e.event_id, e.lease_version " + Claims.candidates(request))) {
            Claims.bindCandidates(select, 1, request, now);
            try (ResultSet rs = select.executeQuery()) {
                while (rs.next()) {
                    ids.add(rs.getObject("event_id", UUID.class));
                    versions.add(rs.getLong("lease_version"));
                }
            }
        }
        if (ids.isEmpty()) {
            return List.of();
        }
        try (PreparedStatement take = connection.prepareStatement("UPDATE outbox_event SET claimed_by = ?,"
                + " lease_version = lease_version + 1, lease_until = ?, next_attempt_at = ?, attempts = attempts + 1"
                + " WHERE event_id = ? AND lease_version = ? AND state = 'PENDING'")) {
            for (int i = 0; i < ids.size(); i++) {
                take.setString(1, request.claimer());
                take.setObject(2, leaseUntil);
                take.setObject(3, leaseUntil);
                take.setObject(4, ids.get(i));
                take.setLong(5, versions.get(i));
                take.addBatch();
            }
            int[] taken = take.executeBatch();
            List<UUID> ours = new ArrayList<>();
            for (int i = 0; i < taken.length; i++) {
                if (taken[i] == 1 || taken[i] == java.sql.Statement.SUCCESS_NO_INFO) {
                    ours.add(ids.get(i));
                }
            }
            if (ours.isEmpty()) {
                return List.of();
            }
            // Read back by id and claimer: the rows this claim took, not the ones a rival took meanwhile.
            try (PreparedStatement read = connection.prepareStatement("SELECT " + Claims.CLAIMED_COLUMNS
                    + " FROM outbox_event WHERE claimed_by = ? AND state = 'PENDING' AND event_id IN (" + Sql.placeholders(ours.size())
                    + ") ORDER BY aggregate_type, aggregate_id, aggregate_version")) {
                read.setString(1, request.claimer());
                for (int i = 0; i < ours.size(); i++) {
                    read.setObject(i + 2, ours.get(i));
                }
                List<OutboundEvent> heads;
                try (ResultSet rs = read.executeQuery()) {
                    heads = Claims.readClaimed(rs, request);
                }
                return Claims.withRuns(connection, request, heads, now, leaseUntil, Claims::followersOf);
            }
        }
    }

    /** Insert-if-absent in one statement; a concurrent twin fails on the key and its transaction is retried. */
    @Override
    public boolean markProcessed(Connection connection, String consumer, UUID eventId, String aggregateType,
                                 String aggregateId, Long aggregateVersion, Long previousVersion, OffsetDateTime now,
                                 OffsetDateTime retainUntil) throws SQLException {
        try (PreparedStatement insert = connection.prepareStatement(InboxMarks.MARK_UNLESS_MARKED)) {
            InboxMarks.bindMarkUnlessMarked(insert, consumer, eventId, aggregateType, aggregateId, aggregateVersion,
                    previousVersion, now, retainUntil);
            return insert.executeUpdate() == 1;
        }
    }

    @Override
    public void startHighWater(Connection connection, String consumer, String aggregateType, String aggregateId,
                               long highWater) throws SQLException {
        try (PreparedStatement insert = connection.prepareStatement("INSERT INTO inbox_high_water (consumer,"
                + " aggregate_type, aggregate_id, high_water) SELECT ?, ?, ?, ? FROM DUAL WHERE NOT EXISTS (SELECT 1"
                + " FROM inbox_high_water WHERE consumer = ? AND aggregate_type = ? AND aggregate_id = ?)")) {
            insert.setString(1, consumer);
            insert.setString(2, aggregateType);
            insert.setString(3, aggregateId);
            insert.setLong(4, highWater);
            insert.setString(5, consumer);
            insert.setString(6, aggregateType);
            insert.setString(7, aggregateId);
            insert.executeUpdate();
        } catch (SQLException e) {
            // Two first deliveries of one aggregate at once: the other inserted the row first. H2 rolls back this
            // statement only, and the caller's FOR UPDATE then waits for the other's commit.
            if (!"23505".equals(e.getSQLState())) {
                throw e;
            }
        }
    }

    @Override
    public void startRequester(Connection connection, String requester) throws SQLException {
        try (PreparedStatement insert = connection.prepareStatement("INSERT INTO outbox_replay_requester (requester)"
                + " SELECT ? FROM DUAL WHERE NOT EXISTS (SELECT 1 FROM outbox_replay_requester WHERE requester = ?)")) {
            insert.setString(1, requester);
            insert.setString(2, requester);
            insert.executeUpdate();
        } catch (SQLException e) {
            // Two first requests at once: the other inserted the row; H2 rolls back this statement only.
            if (!"23505".equals(e.getSQLState())) {
                throw e;
            }
        }
    }
}
