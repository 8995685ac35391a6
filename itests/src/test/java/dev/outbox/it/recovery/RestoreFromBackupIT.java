package dev.outbox.it.recovery;

import dev.outbox.it.support.CrashServer;
import dev.outbox.it.support.ExampleService;
import dev.outbox.it.support.ExampleService.Reply;
import dev.outbox.it.support.LibertyProcess;
import dev.outbox.it.support.OutboxDatabase;
import dev.outbox.it.support.OutboxDatabase.StoredEvent;
import dev.outbox.it.support.PostgreSqlTools;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;

import static dev.outbox.it.support.Eventually.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Restore the producer's database from an old backup while the consumer and the broker have moved on
 * (R7.7, R9.5). The producer's tables here are {@code orders} and {@code outbox_event}; the shipping consumer's
 * ({@code shipment}, {@code processed_event}) stand for another service's database and are not restored.
 * Events that were pending in the backup but delivered since are sent again with their old ids: the inbox
 * absorbs every one, no shipment doubles, and new commands after the restore get new event ids that are applied.
 */
@EnabledIfSystemProperty(named = "it.db", matches = "postgresql")
class RestoreFromBackupIT {

    private static final Duration SOON = Duration.ofSeconds(60);
    private static final String JDBC = CrashServer.jdbcUrl();
    private final ExampleService service = CrashServer.service();
    private final LibertyProcess server = CrashServer.process(service);
    private final OutboxDatabase db = CrashServer.database();

    @AfterEach
    void stopServer() throws Exception {
        server.deleteOverride("failpoint.xml");
        server.stop();
        server.kill();
    }

    @Test
    void reSentOldEventsAreAbsorbedAndNewCommandsAreApplied() throws Exception {
        String tag = "restore-" + UUID.randomUUID();
        // 1. Orders paid while the publisher is off: their 10 events are pending when the backup is taken.
        server.writeOverride("failpoint.xml", "<server><variable name=\"outbox.publisher.enabled\" value=\"false\"/>"
                + "</server>");
        server.start();
        List<String> pendingAtBackup = placeAndPay(tag + "-b", 5);
        List<String> oldIds = eventIds(pendingAtBackup);
        Path backup = Files.createTempFile("outbox-backup-", ".dump");
        new PostgreSqlTools(JDBC).dump(backup, "orders", "outbox_event");
        server.stop();

        // 2. After the backup: the publisher delivers them, and more orders are placed, paid and shipped.
        server.deleteOverride("failpoint.xml");
        server.start();
        List<String> afterBackup = placeAndPay(tag + "-c", 5);
        for (String order : concat(pendingAtBackup, afterBackup)) {
            await(SOON, "one shipment for " + order, () -> db.countWhere("shipment", "order_id", order), n -> n == 1);
        }
        long duplicatesBefore = duplicates(oldIds);
        server.stop();

        // 3. The producer's database goes back to the backup.
        db.execute("TRUNCATE orders, outbox_event");
        new PostgreSqlTools(JDBC).restore(backup);
        Files.delete(backup);
        assertEquals(10, db.count("outbox_event", "event_id IN (" + quoted(oldIds) + ") AND state = 'PENDING'"),
                "the restored events are pending again");

        // 4. Restart: the old events go out again with their old ids, and the inbox absorbs every one.
        server.start();
        await(SOON, "the restored events delivered again", () -> db.count("outbox_event", "event_id IN ("
                + quoted(oldIds) + ") AND state = 'DELIVERED'"), n -> n == 10);
        await(SOON, "all 10 re-sent events absorbed as duplicates", () -> duplicates(oldIds) - duplicatesBefore,
                n -> n == 10);
        assertEquals(oldIds, eventIds(pendingAtBackup), "the re-sent events kept their ids and versions");
        for (String order : concat(pendingAtBackup, afterBackup)) {
            assertEquals(1, db.countWhere("shipment", "order_id", order), "still exactly one shipment for " + order);
        }
        for (String order : afterBackup) {
            assertEquals(404, service.order(order).status(), "the restore lost the producer's newer order " + order
                    + " (the consumer's shipment stays: its database was not restored)");
        }

        // 5. New commands after the restore: new event ids, never taken for one of the old ones.
        List<String> newOrders = placeAndPay(tag + "-d", 3);
        Set<String> newIds = new HashSet<>(eventIds(newOrders));
        assertFalse(newIds.stream().anyMatch(oldIds::contains), "new commands got new event ids");
        for (String order : newOrders) {
            await(SOON, "one shipment for the new order " + order, () -> db.countWhere("shipment", "order_id", order),
                    n -> n == 1);
        }
        assertEquals(0, duplicates(new ArrayList<>(newIds)), "no new event was absorbed as if it were an old one");
        assertTrue(db.count("outbox_event", "state = 'PARKED' AND event_id IN (" + quoted(oldIds) + ")") == 0,
                "nothing parked");
    }

    private List<String> placeAndPay(String customer, int count) {
        List<String> orders = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            Reply placed = service.placeOrder(customer, new BigDecimal("7"));
            assertEquals(201, placed.status(), placed.toString());
            assertEquals(200, service.pay(placed.orderId(), 1).status());
            orders.add(placed.orderId());
        }
        return orders;
    }

    private List<String> eventIds(List<String> orders) {
        List<String> ids = new ArrayList<>();
        for (String order : orders) {
            for (StoredEvent event : db.eventsOf(order)) {
                ids.add(event.eventId() + "");
            }
        }
        return ids;
    }

    private long duplicates(List<String> eventIds) {
        return db.rows("SELECT COALESCE(SUM(duplicates), 0) FROM processed_event WHERE consumer = 'shipping'"
                + " AND event_id IN (" + quoted(eventIds) + ")").stream()
                .mapToLong(r -> ((Number) r.get(0)).longValue()).sum();
    }

    private static List<String> concat(List<String> a, List<String> b) {
        List<String> all = new ArrayList<>(a);
        all.addAll(b);
        return all;
    }

    private static String quoted(List<String> ids) {
        return String.join(", ", ids.stream().map(id -> "'" + id + "'").toList());
    }
}
