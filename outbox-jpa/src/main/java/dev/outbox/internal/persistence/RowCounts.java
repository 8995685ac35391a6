package dev.outbox.internal.persistence;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.EnumMap;
import java.util.Map;

/** The outbox's and the inbox's row counts, for the statistics endpoint and operators. */
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
