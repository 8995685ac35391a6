package dev.outbox.it.support;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/**
 * Reads the server's real database behind its back (R7.1): the tests check rows, not only HTTP answers.
 * H2 is opened through its AUTO_SERVER mode while the server holds the file; PostgreSQL directly.
 */
public final class OutboxDatabase {

    private final String url;
    private final String user;
    private final String password;

    public OutboxDatabase(String url, String user, String password) {
        this.url = url;
        this.user = user;
        this.password = password;
    }

    public static OutboxDatabase fromSystemProperties() {
        return new OutboxDatabase(Settings.required("it.jdbc.url"), Settings.required("it.jdbc.user"),
                System.getProperty("it.jdbc.password", ""));
    }

    /** One row of outbox_event, as the tests need it. */
    public record StoredEvent(UUID eventId, String aggregateType, String aggregateId, long aggregateVersion,
                              String eventType, int schemaVersion, String state, String payload,
                              String brokerMessageId, String lastErrorClass, int attempts) {
    }

    /** One row of orders. */
    public record StoredOrder(String orderId, String customerId, String status, long version) {
    }

    public List<StoredEvent> eventsOf(String aggregateId) {
        return events("SELECT event_id, aggregate_type, aggregate_id, aggregate_version, event_type, schema_version,"
                + " state, payload, broker_message_id, last_error_class, attempts FROM outbox_event WHERE aggregate_id = ?"
                + " ORDER BY aggregate_version", aggregateId);
    }

    /** Events whose payload mentions the text: finds the events of a command whose order id never came back. */
    public List<StoredEvent> eventsMentioning(String text) {
        return events("SELECT event_id, aggregate_type, aggregate_id, aggregate_version, event_type, schema_version,"
                + " state, payload, broker_message_id, last_error_class, attempts FROM outbox_event WHERE payload LIKE ?"
                + " ORDER BY created_at", "%" + text + "%");
    }

    public List<StoredOrder> ordersOf(String customerId) {
        List<StoredOrder> orders = new ArrayList<>();
        query("SELECT order_id, customer_id, status, version FROM orders WHERE customer_id = ?", customerId, rs ->
                orders.add(new StoredOrder(rs.getString(1), rs.getString(2), rs.getString(3), rs.getLong(4))));
        return orders;
    }

    public long count(String table, String where) {
        long[] count = new long[1];
        query("SELECT COUNT(*) FROM " + table + (where.isEmpty() ? "" : " WHERE " + where), null,
                rs -> count[0] = rs.getLong(1));
        return count[0];
    }

    /** A timestamp column as the driver returns it: PostgreSQL's TIMESTAMPTZ, or MariaDB's DATETIME read in UTC. */
    public static java.time.Instant instant(Object column) {
        if (column instanceof java.sql.Timestamp timestamp) {
            return timestamp.toInstant();
        }
        if (column instanceof java.time.OffsetDateTime offset) {
            return offset.toInstant();
        }
        if (column instanceof java.time.LocalDateTime local) {
            return local.toInstant(java.time.ZoneOffset.UTC);
        }
        throw new IllegalArgumentException("not a timestamp: " + column);
    }

    /** Runs one update behind the server's back, as a crash or an operator would leave the table. */
    public int execute(String sql, Object... values) {
        try (Connection connection = DriverManager.getConnection(url, user, password);
             PreparedStatement statement = connection.prepareStatement(sql)) {
            for (int i = 0; i < values.length; i++) {
                statement.setObject(i + 1, values[i]);
            }
            return statement.executeUpdate();
        } catch (SQLException e) {
            throw new IllegalStateException("cannot update the test database at " + url + ": " + sql, e);
        }
    }

    /** Work on one connection of its own (auto-commit), such as writing an outbox row through a test fixture. */
    public <T> T using(ConnectionWork<T> work) {
        try (Connection connection = DriverManager.getConnection(url, user, password)) {
            return work.apply(connection);
        } catch (SQLException e) {
            throw new IllegalStateException("cannot work on the test database at " + url, e);
        }
    }

    @FunctionalInterface
    public interface ConnectionWork<T> {
        T apply(Connection connection) throws SQLException;
    }

    /** Every row of a query, each as its column values in order: for assertions over many rows at once. */
    public List<List<Object>> rows(String sql, Object... values) {
        List<List<Object>> rows = new ArrayList<>();
        try (Connection connection = DriverManager.getConnection(url, user, password);
             PreparedStatement statement = connection.prepareStatement(sql)) {
            for (int i = 0; i < values.length; i++) {
                statement.setObject(i + 1, values[i]);
            }
            try (java.sql.ResultSet rs = statement.executeQuery()) {
                int columns = rs.getMetaData().getColumnCount();
                while (rs.next()) {
                    List<Object> row = new ArrayList<>(columns);
                    for (int c = 1; c <= columns; c++) {
                        row.add(rs.getObject(c));
                    }
                    rows.add(row);
                }
            }
        } catch (SQLException e) {
            throw new IllegalStateException("cannot query the test database at " + url + ": " + sql, e);
        }
        return rows;
    }

    /**
     * A consumer's inbox marks of the outbox events matching {@code eventCondition} (on {@code outbox_event e}, with
     * {@code values} for its placeholders): how many there are, and how many re-sends they absorbed.
     */
    public record InboxMarks(long marks, long absorbed) {
    }

    public InboxMarks inboxMarks(String consumer, String eventCondition, Object... values) {
        Object[] parameters = new Object[values.length + 1];
        parameters[0] = consumer;
        System.arraycopy(values, 0, parameters, 1, values.length);
        List<Object> row = rows("SELECT COUNT(*), COALESCE(SUM(p.duplicates), 0) FROM processed_event p"
                + " JOIN outbox_event e ON p.event_id = e.event_id WHERE p.consumer = ? AND " + eventCondition,
                parameters).get(0);
        return new InboxMarks(((Number) row.get(0)).longValue(), ((Number) row.get(1)).longValue());
    }

    /** Rows per value of one column among the rows matching a condition, such as the claimer that delivered them. */
    public java.util.Map<String, Long> countBy(String table, String column, String where) {
        java.util.Map<String, Long> counts = new java.util.TreeMap<>();
        query("SELECT " + column + ", COUNT(*) FROM " + table + " WHERE " + where + " GROUP BY " + column, null,
                rs -> counts.put(String.valueOf(rs.getString(1)), rs.getLong(2)));
        return counts;
    }

    /** Rows of a table matching a condition on one text column. */
    public long countWhere(String table, String column, String value) {
        long[] count = new long[1];
        query("SELECT COUNT(*) FROM " + table + " WHERE " + column + " = ?", value, rs -> count[0] = rs.getLong(1));
        return count[0];
    }

    private List<StoredEvent> events(String sql, String parameter) {
        List<StoredEvent> events = new ArrayList<>();
        query(sql, parameter, rs -> events.add(new StoredEvent(rs.getObject(1, UUID.class), rs.getString(2),
                rs.getString(3), rs.getLong(4), rs.getString(5), rs.getInt(6), rs.getString(7), rs.getString(8),
                rs.getString(9), rs.getString(10), rs.getInt(11))));
        return events;
    }

    private interface RowReader {
        void read(ResultSet rs) throws SQLException;
    }

    private void query(String sql, String parameter, RowReader reader) {
        try (Connection connection = DriverManager.getConnection(url, user, password);
             PreparedStatement statement = connection.prepareStatement(sql)) {
            if (parameter != null) {
                statement.setString(1, parameter);
            }
            try (ResultSet rs = statement.executeQuery()) {
                while (rs.next()) {
                    reader.read(rs);
                }
            }
        } catch (SQLException e) {
            throw new IllegalStateException("cannot read the test database at " + url + ": " + sql, e);
        }
    }
}
