package dev.outbox.it.upgrade;

import dev.outbox.it.support.CrashServer;
import dev.outbox.it.support.ExampleService;
import dev.outbox.it.support.LibertyProcess;
import dev.outbox.it.support.OutboxDatabase;
import dev.outbox.it.support.OutboxDatabase.StoredEvent;
import dev.outbox.it.support.ServerLog;
import dev.outbox.it.support.Settings;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static dev.outbox.it.support.Eventually.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A rolling upgrade across a schema version and its rollback (R8.4), on PostgreSQL and MariaDB: the previous release's EAR
 * (built from the last commit before the newest schema version, {@code it.upgrade.previous}) and this build's run
 * side by side on one database while clients place and pay orders, both publishing; then the upgraded server is
 * rolled back to the previous release. The two crash servers play the fleet; each server's claims carry its own
 * claimer id, so the table says which release published what. While the upgraded server applies its schema script,
 * a transaction holds outbox_event open for a while (a slow business transaction, a report): the script's ALTER
 * TABLE waits for it in short, bounded tries (issue 42 item 4), and the server still on the previous release keeps
 * taking orders in the meantime instead of queueing behind the ALTER.
 */
@EnabledIfSystemProperty(named = "it.db", matches = "postgresql|mariadb")
class RollingUpgradeIT {

    private static final Path PREVIOUS = Path.of(Settings.required("it.upgrade.previous.ear"));
    private static final Path CURRENT = Path.of(Settings.required("it.ear"));
    /** The previous release's newest schema version. */
    private static final int PREVIOUS_SCHEMA = 11;
    /** This build's newest schema version: the version whose probe is last. */
    private static final int CURRENT_SCHEMA = dev.outbox.internal.persistence.Dialect.SCHEMA_PROBES.lastKey();
    private static final String RELEASE_FILE = "upgrade.xml";
    /** How long a transaction holds outbox_event open while the new release's schema change waits. */
    private static final Duration HOLD = Duration.ofSeconds(10);
    /** The schema the test's connections use, in information_schema's terms. */
    private static final String CURRENT_SCHEMA_SQL = "mariadb".equals(System.getProperty("it.db")) ? "DATABASE()"
            : "current_schema()";

    private final ExampleService serviceA = CrashServer.service();
    private final ExampleService serviceB = CrashServer.secondService();
    private final LibertyProcess serverA = CrashServer.process(serviceA);
    private final LibertyProcess serverB = CrashServer.secondProcess(serviceB);
    private final OutboxDatabase db = CrashServer.database();

    /** Both servers stopped and on this build's EAR again, whatever the test left, for the suites after it. */
    @AfterEach
    void stopBothOnThisBuild() throws Exception {
        for (LibertyProcess server : List.of(serverA, serverB)) {
            server.stop();
            server.kill();
            server.deleteOverride(RELEASE_FILE);
            Files.copy(CURRENT, dropin(server), StandardCopyOption.REPLACE_EXISTING);
        }
    }

    @Test
    void aServerUpgradedBesideThePreviousReleaseAndRolledBackLosesNoEventAndShipsEachOrderOnce() throws Exception {
        String tag = "upgrade-" + UUID.randomUUID();
        int previousSchema = Integer.parseInt(Files.readString(Path.of(PREVIOUS + ".schema")).strip());
        assertEquals(PREVIOUS_SCHEMA, previousSchema, "it.upgrade.previous moved to a release of schema V"
                + previousSchema + ": set PREVIOUS_SCHEMA and drop the tables of the later versions below");
        // 0. The fleet before the upgrade: both servers on the previous release, the database at its schema (V12
        //    adds only this column). A starts first, so two servers never create one schema at once.
        db.execute("ALTER TABLE IF EXISTS outbox_event DROP COLUMN IF EXISTS accepted_by");
        db.execute("DROP TABLE IF EXISTS outbox_content_change"); // V13
        deploy(serverA, PREVIOUS, "a-previous");
        deploy(serverB, PREVIOUS, "b-previous");
        serverA.start();
        serverB.start();
        assertRelease(serverA, PREVIOUS_SCHEMA);
        assertRelease(serverB, PREVIOUS_SCHEMA);

        try (Clients clients = new Clients(tag + "-before", serviceA, serviceB)) {
            clients.awaitOrders(15);

            // 1. The upgrade: A gets this build (and installs its schema) while B, on the previous release, takes
            //    orders and publishes.
            clients.sendTo(tag + "-upgrading", serviceB);
            serverA.stop();
            deploy(serverA, CURRENT, "a-current");
            Duration longestRound;
            try (Connection holder = DriverManager.getConnection(CrashServer.jdbcUrl(), "outbox", "outbox")) {
                holdOutboxEvent(holder);
                clients.measureRounds();
                serverA.launch();
                // A reaches its script: it gives up a bounded wait (OUTBOX-1004), or, unbounded, B's writes queue
                await(Duration.ofSeconds(120), "server A's schema change meeting the held lock",
                        () -> logged(serverA, "OUTBOX-1004") || clients.longestRound().compareTo(HOLD.dividedBy(2)) >= 0, Boolean::booleanValue);
                Thread.sleep(HOLD.toMillis()); // server B's clients keep ordering while the lock is held
                longestRound = clients.longestRound();
                holder.rollback();
            }
            serviceA.awaitAnswering("server A after the held lock", Duration.ofSeconds(120)); // its script applies now
            assertRelease(serverA, CURRENT_SCHEMA);
            assertEquals(1, db.count("information_schema.columns", "table_schema = " + CURRENT_SCHEMA_SQL
                    + " AND table_name = 'outbox_event' AND column_name = 'accepted_by'"),
                    "the new release installed schema V12");
            assertTrue(longestRound.compareTo(HOLD.dividedBy(2)) < 0, "while a transaction held outbox_event for "
                    + HOLD.toSeconds() + " s and the new release's schema change waited for it, server B's longest"
                    + " order (place and pay) took " + longestRound.toMillis() + " ms: its writes queued behind the"
                    + " ALTER TABLE");
            assertTrue(logged(serverA, "OUTBOX-1004"), "server A's schema change"
                    + " gave up waiting for the held lock and tried again (OUTBOX-1004)");

            assertNoRefusals(clients, "while A was upgraded");

            // 2. Side by side: orders go to both, each placed on one server and paid on the other, so one
            //    aggregate's versions are written by both releases; both publish them.
            String sideBySide = tag + "-side-by-side";
            clients.sendTo(sideBySide, serviceA, serviceB);
            clients.awaitOrders(clients.orders().size() + 40);
            await(Duration.ofSeconds(60), "the previous release (server B) publishing beside the new one",
                    () -> delivered(sideBySide, "b-previous"), n -> n > 0);
            await(Duration.ofSeconds(60), "the new release (server A) publishing beside the previous one",
                    () -> delivered(sideBySide, "a-current"), n -> n > 0);
            assertNoRefusals(clients, "side by side");

            // 3. The rollback: A goes back to the previous release on the database the new one migrated. The
            //    new release's consumer drains first, as the runbook asks for any rollback of a consumer server:
            //    the clients pause, and single-version orders (nothing to reorder) bring A's MDB deliveries, whose
            //    release sweep applies what waits for a version B applied.
            clients.sendTo(tag + "-rolling-back", serviceB);
            clients.pause();
            long[] lastNudge = {0};
            await(Duration.ofSeconds(120), "the new release's shipping consumer holds no waiting event", () -> {
                if (System.nanoTime() - lastNudge[0] > 1_000_000_000L) {
                    lastNudge[0] = System.nanoTime();
                    (lastNudge[0] % 2 == 0 ? serviceA : serviceB).placeOrder("nudge-" + UUID.randomUUID(),
                            java.math.BigDecimal.ONE);
                }
                return db.count("inbox_waiting", "consumer = 'shipping'");
            }, n -> n == 0);
            serverA.stop();
            deploy(serverA, PREVIOUS, "a-rolled-back");
            serverA.start();
            assertRelease(serverA, PREVIOUS_SCHEMA);
            clients.resume();
            String after = tag + "-after";
            clients.sendTo(after, serviceA, serviceB);
            clients.awaitOrders(clients.orders().size() + 15);
            await(Duration.ofSeconds(60), "the rolled-back server publishing again",
                    () -> delivered(after, "a-rolled-back"), n -> n > 0);
            clients.close();
            assertNoRefusals(clients, "after the rollback");

            List<String> orders = clients.orders();
            await(Duration.ofSeconds(120), "all " + 2 * orders.size() + " events of the orders delivered",
                    () -> db.count("outbox_event", ofThe(tag) + " AND state = 'DELIVERED'"),
                    n -> n == 2L * orders.size());
            assertEquals(0, db.count("outbox_event", ofThe(tag) + " AND state <> 'DELIVERED'"),
                    "nothing parked or pending");
            // Each event reached the shipping consumer (its inbox marks OrderPlaced too, which ships nothing); a
            // conflict parked by either release (V10 and later park what they cannot tell from a fork) counts as
            // reached, never dropped unseen.
            await(Duration.ofSeconds(120), "an inbox mark or a parked conflict of shipping for each of the "
                    + 2 * orders.size() + " events", () -> db.inboxMarks("shipping", "e." + ofThe(tag)).marks()
                    + db.count("inbox_conflict c JOIN outbox_event e ON e.event_id = c.event_id", "c.consumer ="
                    + " 'shipping' AND e." + ofThe(tag)), n -> n == 2L * orders.size());
            for (String order : orders) {
                assertEquals(List.of(1L, 2L), db.eventsOf(order).stream().map(StoredEvent::aggregateVersion).sorted()
                        .toList(), "order " + order + " has its two versions");
                assertEquals(1, db.countWhere("shipment", "order_id", order), "exactly one shipment for " + order);
            }
            Map<String, Long> byClaimer = db.countBy("outbox_event", "claimed_by", ofThe(tag));
            System.out.println("rolling upgrade: B's longest order while the lock was held " + longestRound.toMillis()
                    + " ms (hold " + HOLD.toSeconds() + " s); " + orders.size() + " orders, " + 2 * orders.size()
                    + " events delivered, by claimer " + byClaimer + "; re-sends absorbed by shipping's inbox "
                    + db.inboxMarks("shipping", "e." + ofThe(tag)).absorbed());
        }
    }

    /** Whether the server's current messages.log has the text; false while Liberty rotates it at start. */
    private static boolean logged(LibertyProcess server, String text) {
        Path log = server.serverDir().resolve("logs/messages.log");
        try {
            return Files.exists(log) && Files.readString(log, java.nio.charset.StandardCharsets.ISO_8859_1)
                    .contains(text);
        } catch (java.io.IOException rotated) {
            return false;
        }
    }

    /** A transaction that has read outbox_event and stays open: its lock keeps an ALTER TABLE of it waiting. */
    private static void holdOutboxEvent(Connection holder) throws SQLException {
        holder.setAutoCommit(false);
        try (Statement read = holder.createStatement();
             ResultSet rs = read.executeQuery("SELECT COUNT(*) FROM outbox_event")) {
            rs.next();
        }
    }

    private static void assertNoRefusals(Clients clients, String when) {
        List<String> refusals = clients.refusals();
        assertEquals(0, refusals.size(), "every request got 201 or 200 " + when + "; " + refusals.size()
                + " did not, the first: " + refusals.subList(0, Math.min(5, refusals.size())));
    }

    private static String ofThe(String tag) {
        return "payload LIKE '%" + tag + "%'";
    }

    private long delivered(String tag, String claimer) {
        return db.count("outbox_event", ofThe(tag) + " AND state = 'DELIVERED' AND claimed_by = '" + claimer + "'");
    }

    /** Puts a release on a stopped server, with a claimer id that names the server and the release. */
    private static void deploy(LibertyProcess server, Path ear, String claimer) throws Exception {
        Files.copy(ear, dropin(server), StandardCopyOption.REPLACE_EXISTING);
        server.writeOverride(RELEASE_FILE, "<server><variable name=\"outbox.publisher.claimer-id\" value=\""
                + claimer + "\"/></server>");
    }

    private static Path dropin(LibertyProcess server) {
        return server.serverDir().resolve("dropins").resolve("example-ear.ear");
    }

    private static final Pattern SCRIPT = Pattern.compile("outbox schema (?:script applied|is up to date):"
            + " \\S+/V(\\d+)__");

    /**
     * The release a server runs, told by the newest schema script it applied at this start (the crash servers
     * create the schema at start), and that it started without an application error.
     */
    private static void assertRelease(LibertyProcess server, int schema) {
        String log = ServerLog.messages(server.serverDir());
        int newest = 0;
        Matcher script = SCRIPT.matcher(log);
        while (script.find()) {
            newest = Math.max(newest, Integer.parseInt(script.group(1)));
        }
        assertEquals(schema, newest, "the release on " + server.serverDir().getFileName() + " applies scripts up to V"
                + schema);
        assertTrue(log.contains("CWWKZ0001I: Application example-ear started"), "example-ear started");
        assertFalse(Pattern.compile("CWWKZ000[24]E").matcher(log).find(), "no application start failure in the server log");
    }
}
