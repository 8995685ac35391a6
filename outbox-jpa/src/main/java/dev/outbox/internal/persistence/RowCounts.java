package dev.outbox.internal.persistence;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.OffsetDateTime;
import java.util.EnumMap;
import java.util.Map;
import java.util.TreeMap;

/** The outbox's and the inbox's row counts, for the statistics endpoint, the gauges and operators. */
@ApplicationScoped
public class RowCounts {

    /**
     * @param blocked            pending rows behind a parked earlier version of their aggregate (R4.6)
     * @param duplicatesAbsorbed redeliveries the inboxes recognised (R5.1)
     */
    public record Counts(long pending, long delivered, long parked, long blocked, long duplicatesAbsorbed) {
    }

    @Inject
    OutboxDataSource database;

    public Counts counts() {
        return database.onConnection(RowCounts::counts, () -> "cannot count the outbox's rows");
    }

    /** The backlog per event type and the consumers' gaps (R6.1, R6.2, R5.7), as read at {@code readAt}. */
    public Backlog backlog(OffsetDateTime readAt) {
        return database.onConnection(connection -> Backlog.read(connection, readAt),
                () -> "cannot read the outbox backlog");
    }

    /** The time the oldest pending event of each type was recorded (R6.4's readiness). */
    public Map<String, OffsetDateTime> oldestPendingByType() {
        return database.onConnection(connection -> {
            Map<String, OffsetDateTime> oldest = new TreeMap<>();
            try (PreparedStatement select = connection.prepareStatement(OutboxRows.OLDEST_PENDING_BY_TYPE);
                 ResultSet rs = select.executeQuery()) {
                while (rs.next()) {
                    oldest.put(rs.getString("event_type"), rs.getObject("oldest", OffsetDateTime.class));
                }
            }
            return oldest;
        }, () -> "cannot read the oldest pending event of each type");
    }

    private static Counts counts(Connection connection) throws SQLException {
        Map<DeliveryState, Long> byState = new EnumMap<>(DeliveryState.class);
        try (PreparedStatement select = connection.prepareStatement(OutboxRows.COUNT_BY_STATE);
             ResultSet rs = select.executeQuery()) {
            while (rs.next()) {
                byState.put(DeliveryState.valueOf(rs.getString("state")), rs.getLong("events"));
            }
        }
        long parked = byState.getOrDefault(DeliveryState.PARKED, 0L);
        long blocked = parked == 0 ? 0 : single(connection, OutboxRows.BLOCKED_BY_PARKED, "events");
        long duplicates = single(connection, InboxMarks.DUPLICATES_ABSORBED, "duplicates");
        return new Counts(byState.getOrDefault(DeliveryState.PENDING, 0L),
                byState.getOrDefault(DeliveryState.DELIVERED, 0L), parked, blocked, duplicates);
    }

    private static long single(Connection connection, String sql, String column) throws SQLException {
        try (PreparedStatement select = connection.prepareStatement(sql); ResultSet rs = select.executeQuery()) {
            rs.next();
            return rs.getLong(column);
        }
    }
}
