package dev.outbox.it.bench;

import dev.outbox.EventId;
import dev.outbox.OutboxEvent;
import dev.outbox.internal.persistence.Dialect;
import dev.outbox.internal.persistence.PendingRow;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/**
 * B1's database bound (issue 20 item 2): the note command's own SQL with and without the outbox row, straight from
 * JDBC with no server, 8 callers each on its own order and connection, in the same ABBA rounds as the server's B1.
 * The "without" transaction is {@code OrderVersions.advance}: the order read as JPA's {@code find} reads it, then
 * the conditional version update; "with" adds the recorder's insert ({@link Dialect#record}) of an OrderNoted
 * event of the same size. The ratio is what the database alone lets the outbox keep of this command's throughput
 * on this machine, the ceiling the server's B1 ratio is a fraction of.
 */
final class SqlWriteOverhead {

    private static final int CALLERS = 8;

    record Figures(double withPerSecond, double withoutPerSecond) {
        double ratio() {
            return withPerSecond / withoutPerSecond;
        }
    }

    private final String jdbc;
    private final Dialect dialect;

    SqlWriteOverhead(String jdbc, Dialect dialect) {
        this.jdbc = jdbc;
        this.dialect = dialect;
    }

    Figures measure(long millis, int rounds) throws Exception {
        String run = "b1sql-" + java.util.UUID.randomUUID().toString().substring(0, 8);
        List<String> orders = new ArrayList<>();
        try (Connection connection = DriverManager.getConnection(jdbc, "outbox", "outbox");
             PreparedStatement place = connection.prepareStatement("INSERT INTO orders (order_id, customer_id, amount,"
                     + " status, version, placed_at) VALUES (?, ?, 10.00, 'PLACED', 1, ?)")) {
            for (int i = 0; i < CALLERS; i++) {
                String order = java.util.UUID.randomUUID().toString(); // as the example's ids, so the row's size
                place.setString(1, order);
                place.setString(2, run);
                place.setTimestamp(3, java.sql.Timestamp.from(java.time.Instant.now()));
                place.executeUpdate();
                orders.add(order);
            }
        }
        ExecutorService callers = Executors.newFixedThreadPool(CALLERS);
        // One connection per caller for the whole measurement, as the server's pool keeps them.
        List<Connection> connections = new ArrayList<>();
        try {
            for (int i = 0; i < CALLERS; i++) {
                Connection connection = DriverManager.getConnection(jdbc, "outbox", "outbox");
                connections.add(connection);
                connection.setAutoCommit(false);
                connection.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
            }
            round(callers, connections, orders, Math.min(millis, 2000), true); // warm-up of both, as the server's B1
            round(callers, connections, orders, Math.min(millis, 2000), false);
            long with = 0;
            long without = 0;
            for (int r = 0; r < rounds; r++) {
                boolean withFirst = r % 2 == 1;
                long first = round(callers, connections, orders, millis, withFirst);
                long second = round(callers, connections, orders, millis, !withFirst);
                with += withFirst ? first : second;
                without += withFirst ? second : first;
            }
            double seconds = rounds * millis / 1000.0;
            return new Figures(with / seconds, without / seconds);
        } finally {
            callers.shutdownNow();
            for (Connection connection : connections) {
                connection.close();
            }
            try (Connection connection = DriverManager.getConnection(jdbc, "outbox", "outbox");
                 PreparedStatement events = connection.prepareStatement("DELETE FROM outbox_event WHERE aggregate_type"
                         + " = 'Order' AND aggregate_id IN (SELECT order_id FROM orders WHERE customer_id = ?)");
                 PreparedStatement placed = connection.prepareStatement("DELETE FROM orders WHERE customer_id = ?")) {
                events.setString(1, run);
                events.executeUpdate();
                placed.setString(1, run);
                placed.executeUpdate();
            }
        }
    }

    /** Every caller runs the command on its own order until the time is up; returns the commands committed. */
    private long round(ExecutorService callers, List<Connection> connections, List<String> orders, long millis,
                       boolean withEvent) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
        List<Future<Long>> done = new ArrayList<>();
        for (int i = 0; i < orders.size(); i++) {
            String order = orders.get(i);
            Connection connection = connections.get(i);
            done.add(callers.submit(() -> {
                long n = 0;
                while (System.nanoTime() < deadline) {
                    note(connection, order, withEvent);
                    connection.commit();
                    n++;
                }
                return n;
            }));
        }
        long total = 0;
        for (Future<Long> f : done) {
            total += f.get();
        }
        return total;
    }

    private void note(Connection connection, String order, boolean withEvent) throws SQLException {
        long expected;
        try (PreparedStatement find = connection.prepareStatement("SELECT order_id, amount, customer_id, paid_at,"
                + " placed_at, status, version FROM orders WHERE order_id = ?")) {
            find.setString(1, order);
            try (ResultSet rs = find.executeQuery()) {
                if (!rs.next()) {
                    throw new IllegalStateException("order " + order + " is gone");
                }
                expected = rs.getLong("version");
            }
        }
        try (PreparedStatement advance = connection.prepareStatement("UPDATE orders SET version = version + 1"
                + " WHERE order_id = ? AND version = ?")) {
            advance.setString(1, order);
            advance.setLong(2, expected);
            if (advance.executeUpdate() != 1) {
                throw new IllegalStateException("order " + order + " moved under its only caller");
            }
        }
        if (withEvent) {
            String body = "{\"orderId\":\"" + order + "\",\"note\":\"b1\"}";
            OutboxEvent event = OutboxEvent.of("Order", order, expected + 1, "OrderNoted", body);
            dialect.record(connection, List.of(new PendingRow(EventId.next(), event,
                    OffsetDateTime.now(ZoneOffset.UTC), false)));
        }
    }
}
