package dev.outbox.it.recovery;

import dev.outbox.it.support.CrashServer;
import dev.outbox.it.support.DedicatedDatabase;
import dev.outbox.it.support.ExampleService;
import dev.outbox.it.support.ExampleService.Reply;
import dev.outbox.it.support.LibertyProcess;
import dev.outbox.it.support.OutboxDatabase;
import dev.outbox.it.support.ServerLog;
import dev.outbox.it.support.Settings;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import static dev.outbox.it.support.Eventually.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The database restarts under load (issue 19): PostgreSQL is stopped hard (an immediate shutdown, or SIGKILL of the
 * postmaster), and MariaDB by SIGKILL of its server (it has no immediate shutdown), while HTTP clients place and pay orders and the publisher drains a backlog, and is started again a
 * few seconds later. Every 201 and 200 a client saw is in the database afterwards; every paid order ships exactly
 * once (nothing lost or applied twice downstream, R1.1, R5.1, R5.5); readiness is DOWN while the database is away
 * and UP after; the publisher and the shipping consumer resume without an application restart; and what a client
 * saw while the database was away were clean 503s, never a 500 or a stack trace.
 *
 * <p>The database server is one of its own (its own folder and port, the database's durable settings), started by
 * its script ({@code scripts/pg-test-cluster.sh}, {@code scripts/mariadb-test-instance.sh}), so stopping it touches
 * no other suite's servers.
 */
@EnabledIfSystemProperty(named = "it.db", matches = "postgresql|mariadb")
class DatabaseRestartIT {

    private static final DedicatedDatabase DATABASE = new DedicatedDatabase();
    private static final Duration AWAY = Duration.ofSeconds(8);
    private static final int BACKLOG_ORDERS = 200;

    private final ExampleService service = CrashServer.service();
    private final LibertyProcess server = CrashServer.process(service);
    private final OutboxDatabase db = DATABASE.database();

    @BeforeAll
    static void startTheCluster() throws Exception {
        // Durable settings, unlike the other suites' servers: with synchronous_commit off, an immediate shutdown loses
        // the last commits PostgreSQL had acknowledged (seen here: two inbox marks and their shipments gone); MariaDB
        // with its redo log flushed once a second loses up to that second.
        DATABASE.startDurable();
    }

    /** The hard stops of this run's database: MariaDB has only SIGKILL. */
    static List<String> halts() {
        return Settings.required("it.db").equals("mariadb") ? List.of("sigkill") : List.of("immediate", "sigkill");
    }

    @AfterAll
    static void stopTheCluster() throws Exception {
        DATABASE.stop();
    }

    @AfterEach
    void stopServer() throws Exception {
        server.stop();
        server.kill();
        server.use(Map.of());
    }

    @ParameterizedTest(name = "the database halted ({0}) and started again")
    @MethodSource("halts")
    void everyAcknowledgedCommandSurvivesADatabaseRestartAndTheServerResumesByItself(String how) throws Exception {
        String tag = "dbrestart-" + how + "-" + UUID.randomUUID();
        // 1. A backlog built with the publisher off, drained one event a batch once it is on.
        server.use(onTheDedicatedDatabase(Map.of("outbox.publisher.enabled", "false")));
        server.start();
        for (int i = 0; i < BACKLOG_ORDERS; i++) {
            Reply placed = service.placeOrder(tag, BigDecimal.ONE);
            assertEquals(201, placed.status(), placed.toString());
            assertEquals(200, service.pay(placed.orderId(), 1).status());
        }
        server.stop();
        // A late backlog would turn readiness DOWN by itself (the test servers allow OrderPaid 3 s): allow it an
        // hour, so DOWN here means the database.
        server.use(onTheDedicatedDatabase(Map.of("outbox.publisher.batch-size", "1",
                "outbox.publisher.interval-ms", "200",
                "outbox.health.max-pending-age", "PT1H", "outbox.health.max-pending-age.OrderPaid", "PT1H")));
        // The backlog is held until just before the halt (the publisher's claim skips locked rows): how long the
        // server takes to start would otherwise decide whether any of it is left when the database dies.
        List<Connection> held = new ArrayList<>(List.of(holdPending()));
        // 2. Clients place and pay while the publisher drains; the database goes away and comes back.
        Set<String> placedSeen = ConcurrentHashMap.newKeySet();
        Set<String> paidSeen = ConcurrentHashMap.newKeySet();
        ConcurrentMap<Integer, AtomicLong> statuses = new ConcurrentHashMap<>();
        List<String> unclean = new java.util.concurrent.CopyOnWriteArrayList<>();
        AtomicBoolean running = new AtomicBoolean(true);
        ExecutorService clients = Executors.newFixedThreadPool(3);
        List<Future<?>> work = new ArrayList<>();
        long pendingAtHalt;
        long halted;
        try {
            server.start();
            for (int c = 0; c < 3; c++) {
                work.add(clients.submit(() -> {
                    while (running.get()) {
                        try {
                            Reply placed = seen(service.placeOrder(tag, BigDecimal.ONE), statuses, unclean);
                            if (placed.status() == 201) {
                                placedSeen.add(placed.orderId());
                                if (seen(service.pay(placed.orderId(), 1), statuses, unclean).status() == 200) {
                                    paidSeen.add(placed.orderId());
                                }
                            }
                        } catch (RuntimeException noAnswer) {
                            // The server stays up: a request it never answered (30 s) is as bad as a 500.
                            if (unclean.size() < 5) {
                                unclean.add("no answer: " + noAnswer.getMessage());
                            }
                        }
                        Thread.sleep(100);
                    }
                    return null;
                }));
            }
            Thread.sleep(500);
            assertEquals(200, readiness(), "readiness UP before the halt");
            // The shipping consumer meets the outage inside its inbox transaction: its shipment insert waits on this
            // lock when the database dies. Without it the consumer is idle between two of the publisher's small
            // batches most of the time, and whether it meets the outage at all is luck. The publisher drains 100 to 300
            // events a second: the backlog, let go now, lasts beyond the halt.
            held.add(lockShipments());
            held.get(0).commit();
            Thread.sleep(500);
            pendingAtHalt = db.count("outbox_event", "state = 'PENDING'");
            halted = System.nanoTime();
            DATABASE.halt(how);
        } catch (Exception | AssertionError beforeTheHalt) {
            running.set(false);
            throw beforeTheHalt;
        } finally {
            // Before the halt (a failure) this releases the locks, so the next case does not start with them held.
            for (Connection connection : held) {
                try {
                    connection.close();
                } catch (SQLException itsDatabaseIsGone) {
                    // nothing left to release
                }
            }
        }
        Duration down = await(Duration.ofSeconds(60), "readiness DOWN while the database is away",
                () -> Duration.ofNanos(System.nanoTime() - halted), d -> readiness() == 503);
        long rest = AWAY.toMillis() - Duration.ofNanos(System.nanoTime() - halted).toMillis();
        if (rest > 0) {
            Thread.sleep(rest);
        }
        DATABASE.resume();
        long resumed = System.nanoTime();
        Duration up = await(Duration.ofSeconds(120), "readiness UP after the database is back",
                () -> Duration.ofNanos(System.nanoTime() - resumed), d -> readiness() == 200);
        Thread.sleep(3_000);
        running.set(false);
        for (Future<?> done : work) {
            done.get(60, TimeUnit.SECONDS);
        }
        clients.shutdown();

        // 3. Everything acknowledged is there, delivered and shipped exactly once; nothing parked.
        String mine = "customer_id = '" + tag + "'";
        String myEvents = "aggregate_id IN (SELECT order_id FROM orders WHERE " + mine + ")";
        await(Duration.ofSeconds(120), "every event of the run delivered after the restart",
                () -> db.count("outbox_event", myEvents + " AND state <> 'DELIVERED'"), n -> n == 0);
        long paid = db.count("orders", mine + " AND status = 'PAID'");
        await(Duration.ofSeconds(120), "one shipment for each of the " + paid + " paid orders", () -> db.count("shipment",
                "order_id IN (SELECT order_id FROM orders WHERE " + mine + " AND status = 'PAID')"), n -> n == paid);
        for (String order : placedSeen) {
            assertEquals(1, db.countWhere("orders", "order_id", order), "the client saw 201 for " + order);
        }
        for (String order : paidSeen) {
            assertEquals(1, db.count("orders", "order_id = '" + order + "' AND status = 'PAID'"),
                    "the client saw 200 for paying " + order);
        }
        assertEquals(List.of(), db.rows("SELECT order_id, COUNT(*) FROM shipment WHERE order_id IN (SELECT order_id"
                + " FROM orders WHERE " + mine + ") GROUP BY order_id HAVING COUNT(*) <> 1"), "orders shipped twice");
        assertEquals(0, db.count("outbox_event", myEvents + " AND state = 'PARKED'"), "a database restart parks nothing");
        System.out.println("database restart (" + Settings.required("it.db") + ", " + how + "): " + (BACKLOG_ORDERS * 2) + " backlog events, " + pendingAtHalt
                + " pending at the halt; readiness DOWN " + down.toMillis() + " ms after the halt, UP " + up.toMillis()
                + " ms after the restart; clients saw " + statuses + " (" + placedSeen.size() + " placed, "
                + paidSeen.size() + " paid)");
        assertEquals(List.of(), unclean, "what a client saw while the database was away: 503s only");
        // The case means something only if the shipping MDB met the outage and waited it out (R5.5).
        assertTrue(ServerLog.messages(server.serverDir())
                .contains("consumer shipping cannot reach its database"), "the shipping consumer met the outage");
        assertTrue(statuses.containsKey(503), "the clients met the outage (a 503 at least once): " + statuses);
        assertTrue(pendingAtHalt > 0, "the publisher was still draining the backlog when the database went away");
    }

    /**
     * A transaction that locks every pending event (the backlog) row by row: the claim's SKIP LOCKED passes them by,
     * and the clients' new events are not held up (read committed: no gap locks on MariaDB).
     */
    private static Connection holdPending() throws SQLException {
        Connection connection = DriverManager.getConnection(DATABASE.jdbcUrl(), "outbox", "outbox");
        connection.setAutoCommit(false);
        connection.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
        try (Statement hold = connection.createStatement()) {
            hold.executeQuery("SELECT event_id FROM outbox_event WHERE state = 'PENDING' FOR UPDATE").close();
        }
        return connection;
    }

    /** A transaction that holds the shipment table against inserts until the database dies under it. */
    private static Connection lockShipments() throws SQLException {
        Connection connection = DriverManager.getConnection(DATABASE.jdbcUrl(), "outbox", "outbox");
        connection.setAutoCommit(false);
        // Repeatable read whatever the server's default: under read committed MariaDB would lock no gaps.
        connection.setTransactionIsolation(Connection.TRANSACTION_REPEATABLE_READ);
        try (Statement lock = connection.createStatement()) {
            // PostgreSQL: a table lock that lets reads through; MariaDB (InnoDB, repeatable read): next-key locks on
            // every index record and gap of the table, which hold back every insert.
            lock.execute(Settings.required("it.db").equals("mariadb") ? "SELECT * FROM shipment FOR UPDATE"
                    : "LOCK TABLE shipment IN EXCLUSIVE MODE");
        }
        return connection;
    }

    /** Counts the status; a 5xx other than a clean 503 (a JSON error, no stack trace) is kept for the assertion. */
    private static Reply seen(Reply reply, ConcurrentMap<Integer, AtomicLong> statuses, List<String> unclean) {
        statuses.computeIfAbsent(reply.status(), s -> new AtomicLong()).incrementAndGet();
        boolean clean = reply.status() < 500 || (reply.status() == 503 && !reply.error().isEmpty()
                && !reply.raw().contains("Exception") && !reply.raw().contains("\tat "));
        if (!clean && unclean.size() < 5) {
            unclean.add(reply.toString().substring(0, Math.min(300, reply.toString().length())));
        }
        return reply;
    }

    private int readiness() {
        try {
            return service.health("health/ready").status();
        } catch (RuntimeException e) {
            return -1;
        }
    }

    /** The crash server's settings for this case, on the dedicated database. */
    private static Map<String, String> onTheDedicatedDatabase(Map<String, String> settings) {
        Map<String, String> all = new java.util.HashMap<>(DATABASE.serverVariables());
        all.putAll(settings);
        return all;
    }
}
