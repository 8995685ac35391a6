package dev.outbox.it.crash;

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
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import static dev.outbox.it.support.Eventually.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Two Liberty servers on one PostgreSQL or MariaDB database drain one backlog (R7.4): no event lost, none delivered twice by the
 * table, the work really shared. They coordinate only through the table (SKIP LOCKED claims, leases); each has two
 * workers, so each also has two batches between claim and confirm at once (issue 44).
 */
@EnabledIfSystemProperty(named = "it.db", matches = "postgresql|mariadb")
class ConcurrentPublishersIT {

    private static final int ORDERS = 400;
    private final ExampleService serviceA = CrashServer.service();
    private final ExampleService serviceB = CrashServer.secondService();
    private final LibertyProcess serverA = CrashServer.process(serviceA);
    private final LibertyProcess serverB = CrashServer.secondProcess(serviceB);
    private final OutboxDatabase db = CrashServer.database();

    @AfterEach
    void stopBoth() throws Exception {
        for (LibertyProcess server : List.of(serverA, serverB)) {
            server.deleteOverride("failpoint.xml");
            server.stop();
            server.kill();
        }
    }

    @Test
    void twoPublishersShareOneBacklogAndLoseNothing() throws Exception {
        // A backlog built with the publisher off.
        serverA.writeOverride("failpoint.xml", "<server><variable name=\"outbox.publisher.enabled\" value=\"false\"/>"
                + "</server>");
        serverA.start();
        String tag = "concurrent-" + UUID.randomUUID();
        List<String> orders = Collections.synchronizedList(new ArrayList<>());
        ExecutorService clients = Executors.newFixedThreadPool(4);
        List<Future<?>> placing = new ArrayList<>();
        for (int i = 0; i < ORDERS; i++) {
            placing.add(clients.submit(() -> {
                Reply placed = serviceA.placeOrder(tag, BigDecimal.ONE);
                assertEquals(201, placed.status(), placed.toString());
                assertEquals(200, serviceA.pay(placed.orderId(), 1).status());
                orders.add(placed.orderId());
                return null;
            }));
        }
        for (Future<?> done : placing) {
            done.get();
        }
        clients.shutdown();
        serverA.stop();

        // The backlog is held back until both servers answer, then released at once: each publishes one event
        // per claim, so their claims interleave whichever server started first (without the hold, a faster
        // publisher that started a few seconds earlier drained 796 of 800 alone).
        String ofThisBacklog = "payload LIKE '%" + tag + "%'";
        db.execute("UPDATE outbox_event SET next_attempt_at = next_attempt_at + INTERVAL '1' DAY WHERE " + ofThisBacklog);
        // Two workers each (issue 44): every server also has two batches between claim and confirm at once.
        String smallBatches = "<server><variable name=\"outbox.publisher.batch-size\" value=\"1\"/>"
                + "<variable name=\"outbox.publisher.workers\" value=\"2\"/></server>";
        serverA.writeOverride("failpoint.xml", smallBatches);
        serverB.writeOverride("failpoint.xml", smallBatches);
        ExecutorService starters = Executors.newFixedThreadPool(2);
        List<Future<?>> started = List.of(starters.submit(() -> {
            serverA.start();
            return null;
        }), starters.submit(() -> {
            serverB.start();
            return null;
        }));
        for (Future<?> done : started) {
            done.get();
        }
        starters.shutdown();
        db.execute("UPDATE outbox_event SET next_attempt_at = CURRENT_TIMESTAMP(6) WHERE " + ofThisBacklog);
        await(Duration.ofSeconds(120), "all " + (2 * ORDERS) + " events delivered",
                () -> db.count("outbox_event", ofThisBacklog + " AND state = 'DELIVERED'"), n -> n == 2L * ORDERS);

        Map<String, Long> split = db.countBy("outbox_event", "claimed_by", ofThisBacklog);
        System.out.println("concurrent publishers: " + (2 * ORDERS) + " events delivered, by claimer: " + split);
        assertEquals(2, split.size(), "both servers delivered part of the backlog: " + split);
        assertTrue(split.values().stream().allMatch(n -> n >= 20), "the work was really shared: " + split);
        await(Duration.ofSeconds(120), "one shipment per order",
                () -> orders.stream().mapToLong(o -> db.countWhere("shipment", "order_id", o)).sum(),
                n -> n == ORDERS);
        for (String order : orders) {
            assertEquals(1, db.countWhere("shipment", "order_id", order), "exactly one shipment for " + order);
        }
    }
}
