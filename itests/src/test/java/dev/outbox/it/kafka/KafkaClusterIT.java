package dev.outbox.it.kafka;

import dev.outbox.internal.persistence.RecordedRow;
import dev.outbox.it.support.ConsumerHealth;
import dev.outbox.it.support.CrashServer;
import dev.outbox.it.support.ExampleService;
import dev.outbox.it.support.KafkaCluster;
import dev.outbox.it.support.KafkaTopic;
import dev.outbox.it.support.LibertyProcess;
import dev.outbox.it.support.OutboxDatabase;
import dev.outbox.it.support.ServerLog;
import dev.outbox.it.support.Settings;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.stream.Collectors;

import static dev.outbox.it.support.Eventually.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The outbox on a replicated Kafka cluster (three KRaft brokers, the topic replicated three times,
 * {@code min.insync.replicas=2}) when a broker dies mid-flight, on a real Liberty server and PostgreSQL: the
 * publisher's idempotent {@code acks=all} producer (R4.7) must lose nothing and keep each aggregate's order (R9.1)
 * when the leader of a hot aggregate's partition is SIGKILLed mid-drain, and the inbox consumers (KafkaInbox:
 * invoicing; Reactive Messaging: loyalty) must apply each event once (R5.1, R5.5) and go on by themselves when the
 * broker that coordinates their group dies while they apply, and re-read what they held when their own server is
 * SIGKILLed after it. The scenario is ordered: the second test runs on the cluster the first one healed.
 */
@EnabledIfSystemProperty(named = "it.db", matches = "postgresql")
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class KafkaClusterIT {

    private static final String TOPIC = "cluster.Order";
    private static final Duration DRAIN = Duration.ofSeconds(180);
    private static final ExampleService SERVICE = CrashServer.service();
    private static final LibertyProcess SERVER = CrashServer.process(SERVICE);
    private static final OutboxDatabase DB = CrashServer.database();
    private static final KafkaCluster CLUSTER = new KafkaCluster(Path.of(Settings.required("it.kafka.cluster.dir")),
            Integer.parseInt(Settings.required("it.kafka.cluster.port")));
    private static final String INVOICING_GROUP = "invoicing-cluster";
    /** A loyalty group coordinated by the same broker as invoicing's, so one kill takes both consumers' coordinator. */
    private static final String LOYALTY_GROUP = KafkaCluster.groupCoordinatedWith(INVOICING_GROUP, "loyalty-cluster-");

    @BeforeAll
    static void startTheCluster() throws Exception {
        // Overrides another suite of this shared server may have left behind when it was killed
        for (String stale : List.of("failpoint.xml", "wakeup.xml", "bench.xml", "outage.xml", "transport.xml")) {
            SERVER.deleteOverride(stale);
        }
        CLUSTER.fresh();
        CLUSTER.createTopic(TOPIC, 3);
        CLUSTER.createTopic(TOPIC + ".dead-letter", 3);
        // One start with the publisher off installs the schema (the suites share the database in any order)
        Map<String, String> idle = route();
        idle.put("outbox.publisher.enabled", "false");
        SERVER.use(idle);
        SERVER.start();
        SERVER.stop();
        SERVER.use(route());
    }

    @AfterAll
    static void stopEverything() throws Exception {
        try {
            SERVER.stop();
            SERVER.kill();
            SERVER.use(Map.of());
        } finally {
            CLUSTER.close();
        }
    }

    /** Every type to the cluster with the outbox's default producer settings; both Kafka consumers read it. */
    private static Map<String, String> route() {
        Map<String, String> route = new LinkedHashMap<>();
        route.put("outbox.publisher.transport", "kafka");
        route.put("outbox.kafka.bootstrap-servers", CLUSTER.bootstrapServers());
        route.put("outbox.kafka.topic", "cluster.{aggregateType}");
        // The default lease (crash.xml shortens it for the crash windows, below what a default Kafka send may take)
        route.put("outbox.publisher.lease-ms", "30000");
        // Smaller batches than the default 500, so the drain is still running when the leader dies
        route.put("outbox.publisher.batch-size", "100");
        // The suites' servers make OrderNoted independent (itests.xml); here every type is strict, so the hot
        // aggregate's versions must reach the consumers in order (R4.6, R9.1). No type is called this.
        route.put("outbox.ordering.independent", "NoTypeOfTheExample");
        route.put("example.kafka.enabled", "true");
        route.put("example.invoicing.topic", TOPIC);
        route.put("example.invoicing.group", INVOICING_GROUP);
        route.put("mp.messaging.incoming.order-events.topic", TOPIC);
        route.put("mp.messaging.incoming.order-events.group.id", LOYALTY_GROUP);
        // A killed server's consumers leave the groups after 10 s instead of the default 45 s, so its successor gets
        // their partitions sooner; what the test proves does not depend on it.
        route.put("outbox.kafka.consumer.session.timeout.ms", "10000");
        route.put("mp.messaging.incoming.order-events.session.timeout.ms", "10000");
        return route;
    }

    @Test
    @Order(1)
    void theLeaderOfAHotAggregatesPartitionKilledMidDrainLosesNothingAndKeepsEachAggregatesOrder() throws Exception {
        Backlog work = Backlog.insert("kd", 1_000, 1_500);
        String hot = work.hot();
        int backlog = work.events();
        String mine = work.outboxRows();
        int leader = CLUSTER.leaderOfKey(TOPIC, hot);

        SERVER.launch();
        // The orders go first (a batch's room goes to due heads before a run); then the hot aggregate drains alone,
        // one strict version per wave, on the partition whose leader is about to die.
        String others = mine + " AND aggregate_id <> '" + hot + "'";
        await(DRAIN, "the other orders delivered", () -> delivered(others), n -> n == 2L * work.orders());
        long delivered = delivered(mine);
        // The followers stall first (a GC pause, a network hiccup) and stay in sync on paper while the leader
        // takes records alone; then the leader dies. With acks=all it acknowledged none of those records, so the
        // producer sends them again to the new leader; with acks=1 they would be acknowledged and lost (R4.7).
        List<Integer> followers = java.util.stream.IntStream.rangeClosed(1, KafkaCluster.NODES)
                .filter(n -> n != leader).boxed().toList();
        for (int follower : followers) {
            CLUSTER.freeze(follower);
        }
        try {
            Thread.sleep(1_500);
            CLUSTER.kill(leader);
        } finally {
            for (int follower : followers) {
                CLUSTER.thaw(follower);
            }
        }
        long killedAt = System.nanoTime();
        long hotWaiting = DB.count("outbox_event", "aggregate_id = '" + hot + "' AND state <> 'DELIVERED'");
        assertTrue(hotWaiting > 0, "the leader died while the hot aggregate was draining (" + delivered + " of "
                + backlog + " delivered when the followers froze, " + hotWaiting + " hot versions waiting after the kill)");
        Progress drain = Progress.watch(() -> delivered(mine), backlog, DRAIN);
        System.out.printf("kafka cluster: followers frozen 1.5 s, then leader %d of the hot aggregate's partition"
                + " SIGKILLed with %d of %d events delivered; longest pause in the drain after it %d ms; drained %d ms after the kill%n", leader,
                delivered, backlog, drain.longestPauseMillis(), (drain.doneAt() - killedAt) / 1_000_000);

        assertEquals(0, DB.count("outbox_event", mine + " AND state = 'PARKED'"), "a broker failover parks nothing");
        await(DRAIN, "every event delivered", () -> delivered(mine), n -> n == backlog);
        // What the cluster really holds after the failover: every event at least once (acks=all, R4.7).
        List<String> onTopic = KafkaTopic.records(CLUSTER.bootstrapServers(), TOPIC, Duration.ofSeconds(3)).stream()
                .filter(r -> r.key() != null && r.key().startsWith(work.tag())).map(r -> KafkaTopic.header(r, "outboxEventId"))
                .toList();
        assertEquals(backlog, onTopic.stream().distinct().count(), "every event of the backlog is on the topic");
        assertEquals("", versionJumps(hot), "the hot aggregate's versions first appear on the topic in order (R9.1)");
        assertEveryEffectOnce(work);
        System.out.printf("kafka cluster: %d records on the topic for %d events, %d events needed a second send%n",
                onTopic.size(), backlog, DB.count("outbox_event", mine + " AND attempts > 1"));
    }

    @Test
    @Order(2)
    void theBrokerCoordinatingTheConsumersThenTheirOwnServerKilledWhileTheyApplyLosesNoEffectAndAppliesNoneTwice()
            throws Exception {
        CLUSTER.startMissing();
        if (!SERVER.running()) {
            SERVER.launch();
        }
        Backlog work = Backlog.insert("kc", 400, 1_000);
        int backlog = work.events();
        String applied = work.appliedRows();
        long before = await(DRAIN, "invoicing applying the new backlog", () -> DB.count("invoice_entry", applied),
                n -> n >= backlog / 20);
        int coordinator = CLUSTER.coordinatorOf(INVOICING_GROUP);
        assertEquals(coordinator, CLUSTER.coordinatorOf(LOYALTY_GROUP), "one broker coordinates both groups");
        CLUSTER.kill(coordinator);
        long after = DB.count("invoice_entry", applied);
        assertTrue(after < backlog, "the coordinator died while invoicing applied (" + after + " of " + backlog + ")");
        // The consumers go on by themselves under the new coordinator (R5.5) ...
        long goal = after + Math.min(backlog / 20, (backlog - after) / 2);
        await(DRAIN, "invoicing applying again after the coordinator died",
                () -> DB.count("invoice_entry", applied), n -> n >= goal);
        // ... and then their own process dies with records in hand: a consumer that committed a poll's offsets before
        // its inbox transactions would lose the rest of that poll's effects here (R5.5); ours re-reads them.
        assertTrue(SERVER.running(), "the consumers' server is running before it is killed");
        SERVER.kill();
        long atCrash = DB.count("invoice_entry", applied);
        long published = delivered(work.outboxRows());
        assertTrue(published > atCrash, "records on the topic waited for invoicing when its server died ("
                + published + " published, " + atCrash + " applied of " + backlog + ")");
        SERVER.launch();
        System.out.printf("kafka cluster: node %d (coordinator of both consumer groups) SIGKILLed with %d of %d events"
                + " applied by invoicing; their server SIGKILLed with %d applied and %d published%n", coordinator, before,
                backlog, atCrash, published);
        assertEveryEffectOnce(work);
        CLUSTER.startMissing();
    }

    /**
     * One test's work: a hot aggregate (one order and {@code hotVersions - 1} notes, strictly ordered here) and
     * {@code orders} placed and paid orders, all ids starting with {@code tag}.
     */
    private record Backlog(String tag, int hotVersions, int orders) {

        /**
         * Inserts the backlog as rows the recorder writes, in one transaction: committed before the drain, so a kill
         * lands in a drain of known size. The tag keeps the ids within the example's 36 characters.
         */
        static Backlog insert(String test, int hotVersions, int orders) {
            Backlog backlog = new Backlog(test + "-" + UUID.randomUUID().toString().substring(0, 8), hotVersions, orders);
            String hot = backlog.hot();
            DB.using(c -> {
                c.setAutoCommit(false);
                RecordedRow.pending("Order", hot, 1, "OrderPlaced").withPayload(placed(hot)).insert(c);
                for (int v = 2; v <= hotVersions; v++) {
                    RecordedRow.pending("Order", hot, v, "OrderNoted")
                            .withPayload("{\"orderId\":\"" + hot + "\",\"note\":\"n" + v + "\"}").insert(c);
                }
                for (int o = 0; o < orders; o++) {
                    String order = backlog.tag() + "-" + o;
                    RecordedRow.pending("Order", order, 1, "OrderPlaced").withPayload(placed(order)).insert(c);
                    RecordedRow.pending("Order", order, 2, "OrderPaid").withPayload(placed(order)).insert(c);
                }
                c.commit();
                return null;
            });
            return backlog;
        }

        String hot() {
            return tag + "-hot";
        }

        int events() {
            return hotVersions + 2 * orders;
        }

        /** Its rows in outbox_event and processed_event. */
        String outboxRows() {
            return "aggregate_id LIKE '" + tag + "-%'";
        }

        /** Its rows in the example's invoice, invoice_entry and loyalty_points. */
        String appliedRows() {
            return "order_id LIKE '" + tag + "-%'";
        }
    }

    private static String placed(String order) {
        return "{\"orderId\":\"" + order + "\",\"customerId\":\"cluster\",\"amount\":2}";
    }

    private static long delivered(String mine) {
        return DB.count("outbox_event", mine + " AND state = 'DELIVERED'");
    }

    /** Both consumers applied every event exactly once, each aggregate's versions in order, by themselves. */
    private static void assertEveryEffectOnce(Backlog work) {
        int events = work.events();
        int orders = work.orders();
        String hot = work.hot();
        String mine = work.outboxRows();
        String applied = work.appliedRows();
        await(DRAIN, "every event delivered", () -> delivered(mine), n -> n == events);
        await(DRAIN, "invoicing applied every event", () -> DB.count("invoice_entry", applied), n -> n == events);
        List<List<Object>> outOfOrder = DB.rows("SELECT order_id, version, previous_version FROM invoice_entry WHERE "
                + applied + " AND NOT ((version = 1 AND previous_version IS NULL) OR previous_version = version - 1)");
        assertEquals(List.of(), outOfOrder, () -> "entries applied out of order or after a gap (order, version,"
                + " previous); " + whereTheOrderBroke(hot));
        assertEquals(work.hotVersions(), DB.rows("SELECT DISTINCT version FROM invoice_entry WHERE order_id = ?", hot).size(),
                "every version of the hot aggregate applied once");
        assertEquals(orders, DB.count("invoice", applied + " AND status = 'SETTLED'"), "each order settled once");
        // R5.5 and R6.1: with nothing more to read, KafkaInbox's offsets catch up too, also when a commit was refused
        // during the failover; a commit left behind would show records waiting and, after the window, a false stall.
        await(DRAIN, "invoicing has nothing waiting by its group's committed offsets", () -> ConsumerHealth.read(SERVICE),
                h -> h.waiting("invoicing") == 0);
        ConsumerHealth.Outcome loyalty = ConsumerHealth.resumesOrIsNamedStalled(SERVICE, "loyalty",
                () -> DB.count("processed_event", "consumer = 'loyalty' AND " + mine) == events, DRAIN);
        if (loyalty.resumed()) {
            assertEquals(orders, DB.count("loyalty_points", applied), "one loyalty award per paid order");
        } else {
            // Liberty's liberty-kafka connector (26.0.0.3) may stop delivering to a channel after the commit failures
            // of a failover, as after an outage (KafkaIT): then the consumer must not be invisible (R6.1), and
            // liveness named it. What it applied before stopping was applied once. It may also have applied every event
            // with its offset commits refused (CWMRX1001W) and never sent again while the topic is quiet: the records
            // wait for it by the group's offsets all the same. Either way the connector said so in this server run's
            // log (messages.log starts again with each start; a relaunched server's connector starts from the committed
            // offsets, so its stall is its own run's); a name without one of those would be a false alarm.
            String log = ServerLog.messages(SERVER.serverDir());
            assertTrue(log.contains("CWMRX1002E") || log.contains("CWMRX1001W"),
                    "loyalty was named stalled, but its channel neither stopped polling nor failed to commit");
            System.out.println("kafka cluster: loyalty (Reactive Messaging on Liberty) stopped after the failover and"
                    + " liveness named it: " + loyalty + ", with " + DB.count("processed_event", "consumer = 'loyalty'"
                    + " AND " + mine) + " of " + events + " events marked");
        }
        assertEquals(List.of(), DB.rows("SELECT order_id FROM loyalty_points WHERE " + applied
                + " GROUP BY order_id HAVING COUNT(*) > 1"), "no order awarded twice by loyalty");
        Map<String, Long> duplicates = DB.rows("SELECT consumer, COALESCE(SUM(duplicates), 0) FROM processed_event"
                + " WHERE " + mine + " GROUP BY consumer").stream()
                .collect(Collectors.toMap(r -> (String) r.get(0), r -> ((Number) r.get(1)).longValue()));
        System.out.println("kafka cluster: duplicates absorbed by the inbox per consumer " + duplicates);
    }

    /**
     * Where a version of the aggregate first appears on the topic other than right after the highest one before it:
     * empty when they came in order. A copy sent again (an unknown outcome) is no jump.
     */
    private static String versionJumps(String aggregate) {
        StringBuilder jumps = new StringBuilder();
        long highest = 0;
        java.util.Set<Long> seen = new java.util.HashSet<>();
        for (var record : KafkaTopic.records(CLUSTER.bootstrapServers(), TOPIC, Duration.ofSeconds(3))) {
            if (!aggregate.equals(record.key())) {
                continue;
            }
            long version = Long.parseLong(KafkaTopic.header(record, "outboxAggregateVersion"));
            if (seen.add(version)) {
                if (version != highest + 1 && jumps.length() < 2000) {
                    jumps.append(record.offset()).append(":v").append(version).append(" after v").append(highest)
                            .append("; ");
                }
                highest = Math.max(highest, version);
            }
        }
        return jumps.toString();
    }

    /** What the table and the topic say about the hot aggregate's order, for a failure message. */
    private static String whereTheOrderBroke(String hot) {
        List<List<Object>> inverted = DB.rows("SELECT a.aggregate_version, a.broker_offset, b.broker_offset, a.attempts,"
                + " b.attempts, b.last_error_class FROM outbox_event a JOIN outbox_event b ON b.aggregate_id = a.aggregate_id"
                + " AND b.aggregate_version = a.aggregate_version + 1 WHERE a.aggregate_id = ? AND b.broker_offset"
                + " < a.broker_offset", hot);
        List<List<Object>> retried = DB.rows("SELECT aggregate_version, attempts, last_error_class, broker_offset FROM"
                + " outbox_event WHERE aggregate_id = ? AND attempts > 1 ORDER BY aggregate_version", hot);
        String jumps = versionJumps(hot);
        List<List<Object>> applied = DB.rows("SELECT version, previous_version, applied_at FROM invoice_entry WHERE"
                + " order_id = ? AND NOT ((version = 1 AND previous_version IS NULL) OR previous_version = version - 1)", hot);
        return "table rows whose next version has a lower offset (version, offset, next offset, attempts, next"
                + " attempts, next error): " + inverted + "; rows sent more than once: " + retried.size() + " "
                + retried.stream().limit(20).toList() + "; on the topic, versions out of order: " + jumps + "; invoicing's out-of-order entries with time: "
                + applied;
    }

    /** A count sampled every 20 ms until it reaches its goal: how long it stood still at most. */
    private record Progress(long longestPauseMillis, long doneAt) {

        static Progress watch(java.util.function.LongSupplier count, long goal, Duration timeout)
                throws InterruptedException {
            long deadline = System.nanoTime() + timeout.toNanos();
            long lastMove = System.nanoTime();
            long last = count.getAsLong();
            long longest = 0;
            while (last < goal) {
                if (System.nanoTime() > deadline) {
                    throw new AssertionError("stuck at " + last + " of " + goal + " after " + timeout);
                }
                Thread.sleep(20);
                long now = count.getAsLong();
                long at = System.nanoTime();
                if (now != last) {
                    longest = Math.max(longest, at - lastMove);
                    lastMove = at;
                    last = now;
                }
            }
            return new Progress(longest / 1_000_000, lastMove);
        }
    }
}
