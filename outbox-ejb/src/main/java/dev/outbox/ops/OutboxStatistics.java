package dev.outbox.ops;

import dev.outbox.internal.persistence.DeliveryState;
import dev.outbox.internal.persistence.InboxMarks;
import dev.outbox.internal.persistence.OutboxDataSource;
import dev.outbox.internal.persistence.OutboxRows;
import jakarta.ejb.Stateless;
import jakarta.ejb.TransactionAttribute;
import jakarta.ejb.TransactionAttributeType;
import jakarta.inject.Inject;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.EnumMap;
import java.util.Map;

/** Counts of the outbox and the inbox, for the stats endpoint and for operators. */
@Stateless
@TransactionAttribute(TransactionAttributeType.SUPPORTS)
public class OutboxStatistics {

    @Inject
    OutboxDataSource database;

    public DeliveryCounts counts() {
        try (Connection connection = database.connect()) {
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
            return new DeliveryCounts(byState.getOrDefault(DeliveryState.PENDING, 0L),
                    byState.getOrDefault(DeliveryState.DELIVERED, 0L), parked, blocked, duplicates);
        } catch (SQLException e) {
            throw new IllegalStateException("cannot count the outbox's rows", e);
        }
    }

    private static long single(Connection connection, String sql, String column) throws SQLException {
        try (PreparedStatement select = connection.prepareStatement(sql); ResultSet rs = select.executeQuery()) {
            rs.next();
            return rs.getLong(column);
        }
    }
}
