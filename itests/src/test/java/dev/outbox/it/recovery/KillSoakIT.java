package dev.outbox.it.recovery;

import dev.outbox.it.support.CrashServer;
import dev.outbox.it.support.ExampleService;
import dev.outbox.it.support.ExampleService.Reply;
import dev.outbox.it.support.LibertyProcess;
import dev.outbox.it.support.OutboxDatabase;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

import java.math.BigDecimal;
import java.time.Duration;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import static dev.outbox.it.support.Eventually.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A kill -9 soak (R7.2 under load): orders are placed and paid over HTTP at a steady rate while the server
 * process is killed with SIGKILL at random moments and started again. Whatever was in flight (claims, sends,
 * MDB transactions, HTTP requests), at the end every order the database holds as paid has exactly one shipment,
 * nothing is pending or parked, and every 201 and 200 the client saw is in the database. It runs on PostgreSQL,
 * MariaDB and on the embedded default (H2), which lost acknowledged payments to a kill while H2 wrote its log 500 ms late.
 */
@EnabledIfSystemProperty(named = "it.db", matches = "h2|postgresql|mariadb")
class KillSoakIT {

    private static final int KILLS = 3;
    private final ExampleService service = CrashServer.service();
    private final LibertyProcess server = CrashServer.process(service);
    private final OutboxDatabase db = CrashServer.database();

    @AfterEach
    void stopServer() throws Exception {
        server.stop();
        server.kill();
    }

    @Test
    void everyCommittedOrderShipsExactlyOnceThroughRepeatedSigkills() throws Exception {
        String tag = "soak-" + java.util.UUID.randomUUID();
        server.deleteOverride("failpoint.xml");
        server.start();
        Set<String> placedSeen = ConcurrentHashMap.newKeySet();
        Set<String> paidSeen = ConcurrentHashMap.newKeySet();
        AtomicInteger refused = new AtomicInteger();
        AtomicBoolean running = new AtomicBoolean(true);
        ExecutorService clients = Executors.newFixedThreadPool(3);
        List<Future<?>> work = new java.util.ArrayList<>();
        for (int c = 0; c < 3; c++) {
            work.add(clients.submit(() -> {
                while (running.get()) {
                    try {
                        Reply placed = service.placeOrder(tag, BigDecimal.ONE);
                        if (placed.status() == 201) {
                            placedSeen.add(placed.orderId());
                            if (service.pay(placed.orderId(), 1).status() == 200) {
                                paidSeen.add(placed.orderId());
                            }
                        }
                    } catch (RuntimeException serverDown) {
                        refused.incrementAndGet();
                    }
                    Thread.sleep(100); // about 10 orders a second from three clients
                }
                return null;
            }));
        }
        Random random = new Random();
        for (int kill = 0; kill < KILLS; kill++) {
            Thread.sleep(4_000 + random.nextInt(6_000));
            server.kill(); // SIGKILL: no shutdown hook, no clean close, whatever is in flight
            server.start();
        }
        Thread.sleep(3_000);
        running.set(false);
        for (Future<?> done : work) {
            done.get();
        }
        clients.shutdown();

        String mine = "customer_id = '" + tag + "'";
        String myEvents = "aggregate_id IN (SELECT order_id FROM orders WHERE " + mine + ")";
        await(Duration.ofSeconds(120), "nothing pending", () -> db.count("outbox_event", myEvents + " AND state <> 'DELIVERED'"),
                n -> n == 0);
        long paid = db.count("orders", mine + " AND status = 'PAID'");
        try {
            await(Duration.ofSeconds(120), "one shipment per paid order", () -> db.count("shipment",
                    "order_id IN (SELECT order_id FROM orders WHERE " + mine + " AND status = 'PAID')"), n -> n == paid);
        } catch (AssertionError e) {
            // Name the orders that never shipped and what the outbox and the inbox hold for them.
            throw new AssertionError(e.getMessage() + "; paid and never shipped, with their events"
                    + " (event type, state, broker id, inbox marks): " + db.rows("SELECT o.order_id, e.event_type,"
                    + " e.state, e.broker_message_id, (SELECT COUNT(*) FROM processed_event p WHERE p.event_id ="
                    + " e.event_id) FROM orders o JOIN outbox_event e ON e.aggregate_id = o.order_id WHERE o." + mine
                    + " AND o.status = 'PAID' AND NOT EXISTS (SELECT 1 FROM shipment s WHERE s.order_id = o.order_id)"
                    + " ORDER BY o.order_id, e.aggregate_version"), e);
        }
        Thread.sleep(3_000); // late redeliveries of the killed servers' in-doubt messages
        assertEquals(List.of(), db.rows("SELECT order_id, COUNT(*) FROM shipment WHERE order_id IN (SELECT order_id"
                + " FROM orders WHERE " + mine + ") GROUP BY order_id HAVING COUNT(*) <> 1"), "orders shipped twice");
        assertEquals(0, db.count("shipment", "order_id IN (SELECT order_id FROM orders WHERE " + mine
                + " AND status <> 'PAID')"), "no shipment for an unpaid order");
        assertEquals(0, db.count("outbox_event", myEvents + " AND state = 'PARKED'"), "nothing parked");
        for (String order : placedSeen) {
            assertEquals(1, db.countWhere("orders", "order_id", order), "the client saw 201 for " + order);
        }
        for (String order : paidSeen) {
            assertEquals(1, db.count("orders", "order_id = '" + order + "' AND status = 'PAID'"),
                    "the client saw 200 for paying " + order);
            assertEquals(1, db.countWhere("shipment", "order_id", order), "a payment the client saw is shipped: " + order);
        }
        long orders = db.count("orders", mine);
        long duplicates = db.rows("SELECT COALESCE(SUM(duplicates), 0) FROM processed_event WHERE consumer = 'shipping'"
                + " AND " + myEvents).stream().mapToLong(r -> ((Number) r.get(0)).longValue()).sum();
        System.out.println("kill -9 soak: " + KILLS + " SIGKILLs, " + orders + " orders (" + placedSeen.size()
                + " 201s seen), " + paid + " paid (" + paidSeen.size() + " 200s seen), " + refused.get()
                + " requests refused while down, duplicates absorbed " + duplicates);
        assertTrue(placedSeen.size() >= 50, "the soak placed enough orders to mean something: " + placedSeen.size());
    }
}
