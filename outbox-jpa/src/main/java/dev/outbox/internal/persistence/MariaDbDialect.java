package dev.outbox.internal.persistence;

import dev.outbox.spi.OutboundEvent;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/**
 * MariaDB 10.6 and later (InnoDB): {@code FOR UPDATE SKIP LOCKED} claims, event ids as text, times as UTC
 * {@code DATETIME(6)}. Its insert-if-absent statements never rely on a failing statement: Open Liberty's statement
 * wrapper asks the driver for more results when it closes one, and MariaDB Connector/J 3.5 then throws a
 * NullPointerException instead (seen in the MariaDB run of the server suites: parallel replay requests of one person
 * answered 500). High-water rows, holds and requesters keep an existing row ({@code ON DUPLICATE KEY UPDATE} of a
 * column to itself). The inbox mark must tell a duplicate apart, so it inserts only where no row has the key
 * ({@code NOT EXISTS}): a duplicate, the common case, raises no error; two deliveries of one event at the same
 * instant make InnoDB fail the second on the key after the first commits, which is taken as a duplicate where the
 * driver lets the statement close, and otherwise rolls that delivery back for the broker to redeliver.
 */
public final class MariaDbDialect implements Dialect {

    /** MariaDB's and MySQL's error code for a duplicate key. */
    private static final int DUPLICATE_KEY = 1062;

    /**
     * Insert-if-absent where the caller need not know which happened: an existing row is kept as it is, with no error
     * even when a rival inserted it a moment ago (InnoDB waits for the rival's commit first). Never INSERT IGNORE,
     * which would also turn a value too long for its column into a silent truncation.
     */
    private static final String KEEP_EXISTING = " ON DUPLICATE KEY UPDATE %1$s = %1$s";

    @Override
    public String name() {
        return "mariadb";
    }

    /**
     * lock_wait_timeout, for this session: an ALTER TABLE gives up after {@code wait} (whole seconds, at least one)
     * waiting for the table's metadata lock (error 1205), instead of the default year.
     */
    @Override
    public void limitSchemaLockWait(Connection connection, java.time.Duration wait) throws SQLException {
        try (Statement set = connection.createStatement()) {
            // The session's own value is kept to be given back (a datasource may set one of its own).
            set.execute("SET @outbox_lock_wait_timeout = @@SESSION.lock_wait_timeout, SESSION lock_wait_timeout = "
                    + Math.max(1, (wait.toMillis() + 999) / 1000));
        }
    }

    @Override
    public void unlimitSchemaLockWait(Connection connection) throws SQLException {
        try (Statement reset = connection.createStatement()) {
            reset.execute("SET SESSION lock_wait_timeout = @outbox_lock_wait_timeout");
        }
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
        // Still pending and due: in the claim's transaction the locks make this hold anyway; it keeps a claim made
        // without one (autocommit) from taking a row another claim leased in between.
        try (PreparedStatement take = connection.prepareStatement("UPDATE outbox_event SET claimed_by = ?,"
                + " lease_version = lease_version + 1, lease_until = ?, next_attempt_at = ?, attempts = attempts + 1"
                + " WHERE event_id IN (" + Sql.placeholders(ids.size()) + ") AND state = 'PENDING' AND next_attempt_at <= ?")) {
            take.setString(1, request.claimer());
            take.setObject(2, leaseUntil);
            take.setObject(3, leaseUntil);
            for (int i = 0; i < ids.size(); i++) {
                take.setObject(i + 4, ids.get(i));
            }
            take.setObject(ids.size() + 4, now);
            if (take.executeUpdate() == 0) {
                return List.of();
            }
        }
        List<OutboundEvent> heads;
        try (PreparedStatement read = connection.prepareStatement("SELECT " + Claims.CLAIMED_COLUMNS
                + " FROM outbox_event WHERE claimed_by = ? AND lease_until = ? AND event_id IN ("
                + Sql.placeholders(ids.size()) + ")")) {
            read.setString(1, request.claimer());
            read.setObject(2, leaseUntil);
            for (int i = 0; i < ids.size(); i++) {
                read.setObject(i + 3, ids.get(i));
            }
            try (ResultSet rs = read.executeQuery()) {
                heads = Claims.readClaimed(rs, request);
            }
        }
        return Claims.withRuns(connection, request, heads, now, leaseUntil, Claims::followersOf);
    }

    @Override
    public boolean markProcessed(Connection connection, String consumer, UUID eventId, String aggregateType,
                                 String aggregateId, Long aggregateVersion, Long previousVersion, OffsetDateTime now,
                                 OffsetDateTime retainUntil) throws SQLException {
        try (PreparedStatement insert = connection.prepareStatement(InboxMarks.MARK_UNLESS_MARKED)) {
            InboxMarks.bindMarkUnlessMarked(insert, consumer, eventId, aggregateType, aggregateId, aggregateVersion,
                    previousVersion, now, retainUntil);
            return insertUnlessPresent(insert);
        }
    }

    @Override
    public void startHighWater(Connection connection, String consumer, String aggregateType, String aggregateId,
                               long highWater) throws SQLException {
        try (PreparedStatement insert = connection.prepareStatement("INSERT INTO inbox_high_water (consumer,"
                + " aggregate_type, aggregate_id, high_water) VALUES (?, ?, ?, ?)" + KEEP_EXISTING.formatted("high_water"))) {
            insert.setString(1, consumer);
            insert.setString(2, aggregateType);
            insert.setString(3, aggregateId);
            insert.setLong(4, highWater);
            insert.executeUpdate();
        }
    }

    @Override
    public void startRequester(Connection connection, String requester) throws SQLException {
        try (PreparedStatement insert = connection.prepareStatement("INSERT INTO outbox_replay_requester (requester)"
                + " VALUES (?)" + KEEP_EXISTING.formatted("requester"))) {
            insert.setString(1, requester);
            insert.executeUpdate();
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
    public void verifyDataSource(Connection connection, String dataSource) throws SQLException {
        if (connection.getTransactionIsolation() != Connection.TRANSACTION_READ_COMMITTED) {
            throw new IllegalStateException("the outbox datasource " + dataSource + " runs at JDBC isolation level "
                    + connection.getTransactionIsolation() + ": the outbox's SQL is written for READ COMMITTED (Liberty:"
                    + " isolationLevel=\"TRANSACTION_READ_COMMITTED\" on the dataSource; WildFly:"
                    + " --transaction-isolation=TRANSACTION_READ_COMMITTED)");
        }
        // The probe is written at +09:00: a driver that converts instants stores its UTC time, one that drops the
        // offset stores 09:00. The read-back and the clock are checked too: a JVM in another zone without the URL
        // options would read every stored time shifted by its offset.
        try (PreparedStatement select = connection.prepareStatement("SELECT @@innodb_flush_log_at_trx_commit AS flush,"
                + " @@session.time_zone AS zone, CAST(CAST(? AS DATETIME(6)) AS CHAR) AS stored,"
                + " CAST('2000-01-01 00:00:00' AS DATETIME(6)) AS epoch, CURRENT_TIMESTAMP(6) AS db_now")) {
            OffsetDateTime probe = OffsetDateTime.of(2000, 1, 1, 9, 0, 0, 0, ZoneOffset.ofHours(9));
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
                OffsetDateTime epoch = rs.getObject("epoch", OffsetDateTime.class);
                OffsetDateTime dbNow = rs.getObject("db_now", OffsetDateTime.class);
                boolean readsUtc = epoch != null && epoch.toInstant().equals(probe.toInstant())
                        && dbNow != null && java.time.Duration.between(dbNow.toInstant(), java.time.Instant.now()).abs()
                        .compareTo(java.time.Duration.ofMinutes(30)) < 0;
                if (!("+00:00".equals(zone) || "UTC".equalsIgnoreCase(zone)) || stored == null
                        || !stored.startsWith("2000-01-01 00:00:00") || !readsUtc) {
                    throw new IllegalStateException("the outbox datasource " + dataSource + " does not keep times in"
                            + " UTC (session time_zone " + zone + ", 2000-01-01T00:00Z stored as " + stored + " and read"
                            + " back as " + epoch + ", the database's clock read as " + dbNow + "): add"
                            + " connectionTimeZone=UTC&forceConnectionTimeZoneToSession=true&preserveInstants=true to"
                            + " its JDBC URL");
                }
            }
        }
    }
}
