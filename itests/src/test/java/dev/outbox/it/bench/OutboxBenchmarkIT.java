package dev.outbox.it.bench;

import dev.outbox.internal.persistence.ClaimRequest;
import dev.outbox.internal.persistence.Claims;
import dev.outbox.internal.persistence.Delivery;
import dev.outbox.internal.persistence.Dialect;
import dev.outbox.internal.persistence.Sql;
import dev.outbox.it.support.CrashServer;
import dev.outbox.it.support.DedicatedDatabase;
import dev.outbox.it.support.ExampleService;
import dev.outbox.it.support.LibertyProcess;
import dev.outbox.it.support.OutboxDatabase;
import dev.outbox.it.support.Settings;
import dev.outbox.spi.OutboundEvent;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static dev.outbox.it.support.Eventually.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The benchmark (issue 8): the publisher's drain rate against the machine's limits, measured in one run so the
 * ratios are fair on a shared machine. Sizes come from system properties: the normal build runs it as a smoke
 * test with small sizes (so it cannot rot), {@code mvn -B verify -pl itests -am -Pbenchmark} with the issue's
 * (see the README). Figures are printed as one table and written to {@code it.bench.out}.
 *
 * <ul>
 *     <li>B0: the raw rate of the publisher's own claim-and-confirm SQL on the database with no broker, and
 *     the raw rate of a Kafka producer with the transport's settings and no database;</li>
 *     <li>B2: a pending backlog drained by the server to Kafka and to the embedded JMS engine (a queue nobody
 *     reads), from first to last confirm in the table;</li>
 *     <li>B4: the Kafka drain again with delivered history in the table, and the claim query's plan;</li>
 *     <li>B5: the server's peak used heap (base metric, sampled) while draining the backlog and a bigger one,
 *     under a fixed maximum heap.</li>
 * </ul>
 * and B1 (write overhead) and B3 (commit-to-consumer latency). All of it runs on PostgreSQL; B0 SQL, B2 to Kafka,
 * B4 with its claim plan and B1 run again on MariaDB in the same run (issue 18), each database on a crash server of
 * its own, so the two can be compared side by side; in {@code -Pbenchmark}, B0 SQL, B2 to Kafka and B1 once more on
 * a PostgreSQL cluster with the durable defaults (issue 20; the {@link DedicatedDatabase}), as the other rows run
 * with fsync off.
 */
@EnabledIfSystemProperty(named = "it.db", matches = "postgresql")
class OutboxBenchmarkIT {

    private static final String KAFKA = Settings.required("it.kafka.bootstrap");
    private static final int EVENTS = Integer.parseInt(Settings.required("it.bench.events"));
    private static final int HISTORY = Integer.parseInt(Settings.required("it.bench.history"));
    private static final int BIG = Integer.parseInt(Settings.required("it.bench.big"));
    private static final String MODE = Settings.required("it.bench.mode");
    /** The publisher's batch size for every drain and for B0's raw loop (the server's default unless set). */
    private static final int BATCH = intSetting("it.bench.batch-size", 500);
    /** The publisher's workers in every drain but the one that measures a second worker (the server's default). */
    private static final int WORKERS = intSetting("it.bench.workers", 1);
    /**
     * {@code write-overhead}: B1 alone, at the full run's rounds, printed (a quick before/after of the write path);
     * {@code latency}: B3 alone, at {@code it.bench.rate} events/s (500 unless set), through Kafka and JMS.
     */
    private static final String ONLY = System.getProperty("it.bench.only", "");
    /**
     * {@code -Dit.bench.warm-events=N}: every drain first drains N events on the started server, then the measured
     * backlog arrives in one transaction, so it meets a server whose JIT has compiled the publishing path (a
     * what-if). 0, the default: the backlog meets a freshly started server, as after a restart.
     */
    private static final int WARM_EVENTS = intSetting("it.bench.warm-events", 0);
    /** The bench servers' lease; B3's step breakdown derives each claim's time from it. */
    private static final Duration BENCH_LEASE = Duration.ofSeconds(30);
    /** The Kafka inbox's batch for B3 (outbox.inbox.batch-size; the server's default unless set; 1 for none). */
    private static final String INBOX_BATCH = System.getProperty("it.bench.inbox-batch-size", "").trim();
    private static final boolean FULL = "full".equals(MODE) || !ONLY.isBlank();
    private static final String HEAP = "-Xmx512m";
    /** Extra server JVM options for a profiled run, e.g. {@code -XX:StartFlightRecording=...} (see the README). */
    private static final String JVM_OPTIONS = System.getProperty("it.bench.jvm-options", "");

    /**
     * One database under test: how its rows are labelled, its crash server and the variables that point the server
     * at it, the server's address, a JDBC view of its tables.
     */
    private record Target(String label, BenchDatabase kind, LibertyProcess server, Map<String, String> variables,
                          ExampleService service, OutboxDatabase db, String jdbc, String baseUrl) {
    }

    private static Target postgresql() {
        ExampleService service = CrashServer.service();
        return new Target("", BenchDatabase.POSTGRESQL, CrashServer.process(service).measured(), Map.of(), service,
                CrashServer.database(), CrashServer.jdbcUrl(), Settings.required("it.crash.base.url"));
    }

    /** The second crash server on the same PostgreSQL database, for the drain by two servers (issue 44). */
    private static Target secondPostgresql() {
        ExampleService service = CrashServer.secondService();
        return new Target("", BenchDatabase.POSTGRESQL, CrashServer.secondProcess(service).measured(), Map.of(),
                service, CrashServer.database(), CrashServer.jdbcUrl(), Settings.required("it.crash.b.base.url"));
    }

    /** PostgreSQL's crash server on a cluster with the durable defaults (fsync, synchronous commits) instead. */
    private static Target durablePostgresql(DedicatedDatabase cluster) {
        ExampleService service = CrashServer.service();
        return new Target("PostgreSQL durable (fsync and synchronous_commit on): ", BenchDatabase.POSTGRESQL,
                CrashServer.process(service).measured(), cluster.serverVariables(), service, cluster.database(),
                cluster.jdbcUrl(), Settings.required("it.crash.base.url"));
    }

    private static Target mariadb() {
        String baseUrl = Settings.required("it.bench.mariadb.base.url");
        ExampleService service = new ExampleService(baseUrl);
        String jdbc = Settings.required("it.bench.mariadb.jdbc.url");
        return new Target("MariaDB: ", BenchDatabase.MARIADB, new LibertyProcess(Path.of(Settings.required("it.wlp")),
                Settings.required("it.bench.mariadb.server"), service).measured(), Map.of(), service,
                new OutboxDatabase(jdbc, "outbox", "outbox"), jdbc, baseUrl);
    }

    private final Target pg = postgresql();
    private final Target maria = mariadb();
    private final Target pgSecond = secondPostgresql();
    private final HttpClient http = HttpClient.newHttpClient();

    @AfterEach
    void restoreTheCrashServers() throws Exception {
        for (Target target : List.of(pg, maria, pgSecond)) {
            LibertyProcess server = target.server();
            server.stop();
            server.kill();
            server.deleteOverride("bench.xml");
            server.use(java.util.Map.of());
            Files.deleteIfExists(server.serverDir().resolve("jvm.options"));
            forgetQueuedMessages(server);
        }
    }

    /**
     * Nobody reads the JMS drain's queue, so its messages stay in the engine's file store: start each drain, and
     * leave, with an empty store rather than fill it (CWSOM1042E) or hand later tests a big one.
     */
    private static void forgetQueuedMessages(LibertyProcess server) throws java.io.IOException {
        Path store = server.serverDir().resolve("messaging");
        if (Files.exists(store)) {
            try (var files = Files.walk(store)) {
                for (Path file : files.sorted(java.util.Comparator.reverseOrder()).toList()) {
                    Files.delete(file);
                }
            }
        }
    }

    @Test
    void theWriteOverheadAlone() throws Exception {
        Assumptions.assumeTrue("write-overhead".equals(ONLY), "runs with -Dit.bench.only=write-overhead");
        BenchmarkTable table = new BenchmarkTable();
        for (Target target : List.of(pg, maria)) {
            prepare(target);
            writeOverheadRows(table, target);
        }
        writeOverheadRow(table, pg, tracedWriteOverhead(pg));
        // Each row is printed as it is added ("benchmark | ..." lines); nothing is written to results.md.
    }

    @Test
    void theLatencyAlone() throws Exception {
        Assumptions.assumeTrue("latency".equals(ONLY), "runs with -Dit.bench.only=latency");
        BenchmarkTable table = new BenchmarkTable();
        prepare(pg);
        int perSecond = intSetting("it.bench.rate", 500);
        latencyRow(table, "Kafka", "p99 <= 100 ms", latency("kafka", perSecond, List.of("invoicing", "loyalty")));
        latencyRow(table, "JMS", "p99 <= 50 ms", latency("jms", perSecond, List.of("shipping")));
        // Each row is printed as it is added ("benchmark | ..." lines); nothing is written to results.md.
    }

    @Test
    void theDrainAlone() throws Exception {
        Assumptions.assumeTrue("drain".equals(ONLY), "runs with -Dit.bench.only=drain");
        BenchmarkTable table = new BenchmarkTable();
        prepare(pg);
        SqlLimit limit = rawClaimAndConfirm(pg, EVENTS);
        double sql = limit.rate();
        table.add("B0 claim+confirm SQL, no broker (" + EVENTS + " events, batches of " + BATCH + ")", rate(sql), "-",
                "-", sqlCpu(limit));
        Drain kafka = drain(pg, "kafka", EVENTS);
        table.add("B2 drain to Kafka, " + EVENTS + " pending", rate(kafka.rate()), ">= 20,000/s", "-",
                String.format("%.2f of B0 SQL; ", kafka.rate() / sql) + kafka.cpuBound());
        Drain twoWorkers = drain(pg, "kafka", EVENTS, 2);
        table.add("B2 drain to Kafka, " + EVENTS + " pending, 2 workers (outbox.publisher.workers)",
                rate(twoWorkers.rate()), ">= 1.0 of one worker", "-",
                String.format("%.2f of one worker; ", twoWorkers.rate() / kafka.rate()) + twoWorkers.cpuBound());
        Drain fourWorkers = drain(pg, "kafka", EVENTS, 4);
        table.add("B2 drain to Kafka, " + EVENTS + " pending, 4 workers (outbox.publisher.workers)",
                rate(fourWorkers.rate()), "not slower than 2 workers", "-",
                String.format("%.2f of 2 workers; ", fourWorkers.rate() / twoWorkers.rate()) + fourWorkers.cpuBound());
        twoServerRows(table);
        table.note("where the drains' time went: one worker " + kafka.profile() + "; 2 workers "
                + twoWorkers.profile() + "; 4 workers " + fourWorkers.profile());
        table.note(cpuNote("B0 SQL", limit.cpu(), limit.rate()) + "; "
                + cpuNote("B2 Kafka", kafka.cpu(), kafka.rate()) + "; "
                + cpuNote("B2 Kafka, 2 workers", twoWorkers.cpu(), twoWorkers.rate()));
        if (Boolean.getBoolean("it.bench.jms")) {
            jmsRows(table, sql);
        }
        // Each row is printed as it is added ("benchmark | ..." lines); nothing is written to results.md.
    }

    @Test
    void theServersAlone() throws Exception {
        Assumptions.assumeTrue("servers".equals(ONLY), "runs with -Dit.bench.only=servers");
        BenchmarkTable table = new BenchmarkTable();
        prepare(pg);
        twoServerRows(table);
        // Each row is printed as it is added ("benchmark | ..." lines); nothing is written to results.md.
    }

    @Test
    void theChangeDataCapturePeerAlone() throws Exception {
        Assumptions.assumeTrue("debezium".equals(ONLY), "runs with -Dit.bench.only=debezium");
        BenchmarkTable table = new BenchmarkTable();
        prepare(pg);
        Drain kafka = drain(pg, "kafka", EVENTS);
        table.add("B2 drain to Kafka, " + EVENTS + " pending", rate(kafka.rate()), ">= 20,000/s", "-", "-");
        debeziumDrainRow(table, kafka);
        int perSecond = intSetting("it.bench.rate", 500);
        debeziumLatencyRows(table, new int[] {perSecond}, Map.of());
        // Each row is printed as it is added ("benchmark | ..." lines); nothing is written to results.md.
    }

    @Test
    void theDrainRatesAgainstTheMachinesLimits() throws Exception {
        Assumptions.assumeTrue(ONLY.isBlank(), "-Dit.bench.only runs one scenario");
        BenchmarkTable table = new BenchmarkTable();
        prepare(pg);

        SqlLimit limit = rawClaimAndConfirm(pg, EVENTS);
        double sql = limit.rate();
        table.add("B0 claim+confirm SQL, no broker (" + EVENTS + " events, batches of " + BATCH + ")", rate(sql), "-",
                "-", sqlCpu(limit));
        double producer = rawKafkaProducer(EVENTS);
        table.add("B0 Kafka producer, no database (" + EVENTS + " records)", rate(producer), "-", "-", "-");

        Drain kafka = drain(pg, "kafka", EVENTS);
        double peer = new PeerDrain(pg.jdbc(), producerSettings(), pg.db()).drain(EVENTS);
        table.add("B2 drain to Kafka, " + EVENTS + " pending", rate(kafka.rate()), ">= 20,000/s; >= 5x the peer",
                rate(peer) + " (gruelbox transaction-outbox 4.2.268)", String.format("%.1fx the peer; %.2f of the"
                        + " slower B0 limit; ", kafka.rate() / peer, kafka.rate() / Math.min(sql, producer))
                        + kafka.cpuBound());
        if (FULL) {
            debeziumDrainRow(table, kafka);
        }
        Drain twoWorkers = drain(pg, "kafka", EVENTS, 2);
        table.add("B2 drain to Kafka, " + EVENTS + " pending, 2 workers (outbox.publisher.workers)",
                rate(twoWorkers.rate()), ">= 1.0 of one worker", "not measured",
                String.format("%.2f of one worker; ", twoWorkers.rate() / kafka.rate()) + twoWorkers.cpuBound());
        Drain fourWorkers = drain(pg, "kafka", EVENTS, 4);
        table.add("B2 drain to Kafka, " + EVENTS + " pending, 4 workers (outbox.publisher.workers)",
                rate(fourWorkers.rate()), "not slower than 2 workers", "not measured",
                String.format("%.2f of 2 workers; ", fourWorkers.rate() / twoWorkers.rate()) + fourWorkers.cpuBound());
        twoServerRows(table);
        Drain jms = jmsRows(table, sql);

        insertHistory(pg, HISTORY);
        Drain withHistory = drain(pg, "kafka", EVENTS);
        table.add("B4 drain to Kafka with " + HISTORY + " delivered rows in the table", rate(withHistory.rate()),
                "ratio >= 0.9", "-", String.format("%.2f of the empty-table drain", withHistory.rate() / kafka.rate()));
        table.note("B4 claim plan on PostgreSQL: " + withHistory.plan());

        Drain big = drain(pg, "kafka", BIG);
        table.add("B5 peak used heap draining " + EVENTS + " / " + BIG + " events (" + HEAP + ")",
                mb(kafka.peakHeapBytes()) + " / " + mb(big.peakHeapBytes()), "bounded by the batch, not the backlog",
                "-", String.format("%.2f", (double) big.peakHeapBytes() / Math.max(1, kafka.peakHeapBytes())));
        writeOverheadRows(table, pg);
        writeOverheadRow(table, pg, tracedWriteOverhead(pg));

        // The rate, and a rate this machine sustains end to end (load, publisher, broker, consumers and
        // PostgreSQL share its cores), which shows what the outbox itself adds.
        int[] rates = FULL ? new int[] {100, 500} : new int[] {50};
        Map<Integer, Map<String, Latency>> kafkaLatency = new java.util.HashMap<>();
        for (int perSecond : rates) {
            latencyRow(table, "JMS", "p99 <= 50 ms", latency("jms", perSecond, List.of("shipping")));
            kafkaLatency.put(perSecond, latency("kafka", perSecond, List.of("invoicing", "loyalty")));
            latencyRow(table, "Kafka", "p99 <= 100 ms", kafkaLatency.get(perSecond));
        }
        if (FULL) {
            debeziumLatencyRows(table, rates, kafkaLatency);
        }

        // MariaDB beside PostgreSQL (issue 18): the same SQL limit, drain, history and write overhead.
        prepare(maria);
        double mariaSql = rawClaimAndConfirm(maria, EVENTS).rate();
        table.add("MariaDB: B0 claim+confirm SQL, no broker (" + EVENTS + " events, batches of " + BATCH + ")",
                rate(mariaSql), "-", "-", String.format("%.2f of PostgreSQL's (whose test cluster runs with fsync off)",
                        mariaSql / sql));
        Drain mariaKafka = drain(maria, "kafka", EVENTS);
        table.add("MariaDB: B2 drain to Kafka, " + EVENTS + " pending", rate(mariaKafka.rate()), ">= 20,000/s",
                "not measured", String.format("%.2f of the slower B0 limit; %.2f of PostgreSQL's drain",
                        mariaKafka.rate() / Math.min(mariaSql, producer), mariaKafka.rate() / kafka.rate()));
        insertHistory(maria, HISTORY);
        Drain mariaHistory = drain(maria, "kafka", EVENTS);
        table.add("MariaDB: B4 drain to Kafka with " + HISTORY + " delivered rows in the table",
                rate(mariaHistory.rate()), "ratio >= 0.9", "-", String.format("%.2f of the empty-table drain",
                        mariaHistory.rate() / mariaKafka.rate()));
        table.note("B4 claim plan on MariaDB (EXPLAIN, one row per table): " + mariaHistory.plan());
        writeOverheadRows(table, maria);

        // What production costs (issue 20): only at the sizes, as the smoke run's tiny backlog shows no
        // commit cost and CI time is short.
        String durableProfile = FULL ? durableRows(table, sql, producer, kafka) : "not run (-Pbenchmark only)";

        table.note("where the drains' time went (publisher run profiles): Kafka " + kafka.profile() + "; Kafka with"
                + " 2 workers " + twoWorkers.profile() + "; Kafka with 4 workers " + fourWorkers.profile() + "; JMS "
                + jms.profile() + "; Kafka with history " + withHistory.profile() + "; MariaDB Kafka "
                + mariaKafka.profile() + "; MariaDB Kafka with history " + mariaHistory.profile()
                + "; PostgreSQL durable Kafka " + durableProfile);
        table.note("CPU per event during the drains (core-ms, from /proc, first to last confirm): "
                + cpuNote("B0 SQL", limit.cpu(), limit.rate()) + "; " + cpuNote("B2 Kafka", kafka.cpu(), kafka.rate())
                + "; " + cpuNote("B2 Kafka, 2 workers", twoWorkers.cpu(), twoWorkers.rate()));
        table.note("publisher settings: batch-size " + BATCH + ", workers " + WORKERS + ", one run drains up to 100"
                + " batches, lease " + BENCH_LEASE.toSeconds() + " s");
        table.write(Path.of(Settings.required("it.bench.out")), MODE);

        assertTrue(kafka.rate() > 0 && jms.rate() > 0 && withHistory.rate() > 0 && mariaKafka.rate() > 0
                && mariaHistory.rate() > 0, "every drain delivered");
    }

    /**
     * B2's second peer (issue 20 item 4): Debezium capturing a backlog of the same rows in a table of the outbox's
     * shape on the same PostgreSQL into the same broker. Only in {@code -Pbenchmark} and
     * {@code -Dit.bench.only=debezium}: its engine and slot cost CI time and the smoke run's backlog shows nothing.
     */
    private void debeziumDrainRow(BenchmarkTable table, Drain ours) throws Exception {
        try (DebeziumPeer debezium = DebeziumPeer.start(pg.jdbc(), producerSettings(), pg.db())) {
            DebeziumPeer.Drained drained = debezium.drain(EVENTS);
            double rate = drained.rate();
            table.add("B2 peer: " + DebeziumPeer.NAME + ", " + EVENTS + " rows committed while it was stopped",
                    rate(rate), "ours ahead", "-", String.format("ours is %.2fx", ours.rate() / rate));
            // Its engine runs in this JVM, so its work counts as "benchmark"; ours runs in the server.
            table.note("CPU per event (core-ms, from /proc): "
                    + cpuNote("Debezium's drain", drained.cpu(), drained.rate()) + "; "
                    + cpuNote("ours to Kafka", ours.cpu(), ours.rate()));
        }
    }

    /**
     * B3 for the Debezium peer at the rates ours ran: single-row transactions into its captured table, commit to a
     * plain consumer's poll. Compared with ours through Kafka, whose figure runs to the consumer's inbox mark (a
     * transaction more) and whose load is the example's note command (a business transaction, not a bare insert).
     */
    private void debeziumLatencyRows(BenchmarkTable table, int[] rates, Map<Integer, Map<String, Latency>> ours)
            throws Exception {
        try (DebeziumPeer debezium = DebeziumPeer.start(pg.jdbc(), producerSettings(), pg.db())) {
            for (int perSecond : rates) {
                DebeziumPeer.Latency l = debezium.latency(perSecond, FULL ? 8_000 : 1_000, FULL ? 15_000 : 3_000);
                String compared = ours.getOrDefault(perSecond, Map.of()).entrySet().stream()
                        .map(e -> String.format("ours (%s) p99 is %.1fx", e.getKey(), e.getValue().p99() / l.p99()))
                        .collect(java.util.stream.Collectors.joining("; "));
                table.add(String.format("B3 peer: %s, commit to a plain consumer, %d events/s asked, %,.0f achieved,"
                                + " for %.0f s", DebeziumPeer.NAME, perSecond, l.events() / l.seconds(), l.seconds()),
                        String.format("p50 %.0f ms, p99 %.0f ms", l.p50(), l.p99()), "ours within 2x", "-",
                        compared.isEmpty() ? "-" : compared);
            }
        }
    }

    /**
     * The SQL limit, the drain and the write overhead again on a PostgreSQL cluster of its own with the durable
     * defaults (fsync, synchronous commits), as every other row runs with fsync off; returns the drain's profile.
     */
    private String durableRows(BenchmarkTable table, double sql, double producer, Drain kafka) throws Exception {
        DedicatedDatabase cluster = new DedicatedDatabase();
        Target durable = durablePostgresql(cluster);
        cluster.startDurable();
        Drain durableKafka;
        try {
            prepare(durable);
            double durableSql = rawClaimAndConfirm(durable, EVENTS).rate();
            table.add(durable.label() + "B0 claim+confirm SQL, no broker (" + EVENTS + " events, batches of " + BATCH
                    + ")", rate(durableSql), "-", "-", String.format("%.2f of the fsync-off cluster's", durableSql / sql));
            durableKafka = drain(durable, "kafka", EVENTS);
            table.add(durable.label() + "B2 drain to Kafka, " + EVENTS + " pending", rate(durableKafka.rate()),
                    ">= 20,000/s", "not measured", String.format("%.2f of the slower B0 limit; %.2f of the fsync-off"
                            + " drain", durableKafka.rate() / Math.min(durableSql, producer),
                            durableKafka.rate() / kafka.rate()));
            writeOverheadRows(table, durable);
        } finally {
            // Whatever failed: the crash server stopped and pointed back at the run's own database before the
            // cluster goes, so no later suite meets a server on a stopped database.
            try {
                durable.server().stop();
                durable.server().kill();
            } finally {
                try {
                    durable.server().use(Map.of());
                } finally {
                    cluster.stop();
                }
            }
        }
        return durableKafka.profile();
    }

    /** A started-once crash server (so its schema exists), an empty outbox table and the benchmark's heap limit. */
    private void prepare(Target target) throws Exception {
        LibertyProcess server = target.server();
        server.deleteOverride("failpoint.xml");
        server.use(runVariables(target));
        server.start(); // creates the schema when the benchmark runs on a fresh database
        server.stop();
        Files.writeString(server.serverDir().resolve("jvm.options"),
                HEAP + "\n" + String.join("\n", JVM_OPTIONS.isBlank() ? new String[0] : JVM_OPTIONS.split(" ")) + "\n");
        target.db().execute("DELETE FROM outbox_event");
        String fillfactor = System.getProperty("it.bench.fillfactor", "").trim();
        if (!fillfactor.isEmpty() && target.kind() == BenchDatabase.POSTGRESQL) {
            // A what-if: how full PostgreSQL packs new pages, the room a claim's in-place (HOT) update needs.
            target.db().execute("ALTER TABLE outbox_event SET (fillfactor = " + Integer.parseInt(fillfactor) + ")");
        }
    }

    private static void writeOverheadRow(BenchmarkTable table, Target target, jakarta.json.JsonObject b1) {
        String on = target.label() + (b1.getBoolean("traced", false)
                ? "tracing on (a span per command, OTLP export): " : "");
        table.add(on + "B1 write overhead: the note command with / without its event, 8 callers in the server",
                String.format("%,.0f / %,.0f tx/s", b1.getJsonNumber("withOutboxPerSecond").doubleValue(),
                        b1.getJsonNumber("withoutPerSecond").doubleValue()), "ratio >= 0.85", "not measured",
                String.format("%.2f", b1.getJsonNumber("ratio").doubleValue()));
        table.note(on + "B1 rounds (tx/s with, without): " + b1.getJsonArray("rounds"));
    }

    /**
     * B1 on the target's server, then its bound (issue 20 item 2): the same command's SQL from JDBC with no server,
     * at the server's B1 rounds, on the same database right after it; the server's ratio as a fraction of the
     * database's own.
     */
    private static void writeOverheadRows(BenchmarkTable table, Target target) throws Exception {
        jakarta.json.JsonObject b1 = writeOverhead(target);
        writeOverheadRow(table, target, b1);
        String row = target.label() + "B1 database bound: the note command's SQL alone with / without the outbox row,"
                + " 8 JDBC callers, no server";
        SqlWriteOverhead.Figures bound;
        try {
            bound = new SqlWriteOverhead(target.jdbc(), target.kind().dialect()).measure(FULL ? 5000 : 1000,
                    FULL ? 4 : 1);
        } catch (Exception | AssertionError e) {
            if (!FULL) {
                throw e; // the smoke run exists to catch a measurement that broke
            }
            // A full run takes half an hour: one failed row must not cost the table (seen once on MariaDB,
            // 2026-12-06: "order ... moved under its only caller", not understood yet).
            table.add(row, "failed", "-", "-", String.valueOf(e.getCause() == null ? e : e.getCause()));
            return;
        }
        double ours = b1.getJsonNumber("ratio").doubleValue();
        table.add(row, String.format("%,.0f / %,.0f tx/s", bound.withPerSecond(), bound.withoutPerSecond()), "-", "-",
                String.format("%.2f; the server's B1 ratio is %.2f of it", bound.ratio(), ours / bound.ratio()));
    }

    /**
     * One drain: its rate, the server's peak heap, where the publisher's time went, the claim's plan before it, and
     * where the machine's CPU went from its first confirm to its last.
     */
    private record Drain(double rate, long peakHeapBytes, String profile, String plan, CpuMeter.Usage cpu) {

        /** How busy the cores were and the rate that CPU per event allows with every core busy. */
        String cpuBound() {
            return !cpu.measured() ? "CPU not sampled (too short)" : String.format(
                    "cores %.0f%% busy, so at most %,.0f/s at its CPU per event", 100 * cpu.busyShare(),
                    cpu.boundFor(rate));
        }
    }

    /** A drained backlog's first and last confirm, as the table recorded them. */
    private record Confirms(java.time.Instant first, java.time.Instant last) {

        /** Asserts that every one of the {@code events} rows {@code mine} selects was delivered, and reads the span. */
        static Confirms of(OutboxDatabase db, String mine, int events) {
            List<Object> span = db.rows("SELECT MIN(delivered_at), MAX(delivered_at) FROM outbox_event WHERE " + mine)
                    .get(0);
            assertEquals(events, db.count("outbox_event", mine + " AND state = 'DELIVERED'"), "every event delivered");
            return new Confirms(OutboxDatabase.instant(span.get(0)), OutboxDatabase.instant(span.get(1)));
        }

        double seconds() {
            return Math.max(Duration.between(first, last).toNanos() / 1e9, 0.001);
        }
    }

    private static final Pattern RUN_PROFILE = Pattern.compile("outbox run profile: events=(\\d+) batches=(\\d+)"
            + " total_ms=(\\d+) claim_ms=(\\d+) send_ms=(\\d+) confirm_ms=(\\d+)");

    /**
     * Sums the publisher's run profiles (FINE lines in trace.log): where the drain's wall time went, in shares of
     * the time the runs took.
     */
    private static String runProfile(LibertyProcess server, long fromByte) throws java.io.IOException {
        Path trace = server.serverDir().resolve("logs/trace.log");
        long[] sums = new long[6];
        if (Files.exists(trace)) {
            byte[] bytes = Files.readAllBytes(trace);
            int from = (int) Math.min(fromByte, bytes.length);
            Matcher m = RUN_PROFILE.matcher(new String(bytes, from, bytes.length - from,
                    java.nio.charset.StandardCharsets.ISO_8859_1));
            while (m.find()) {
                for (int i = 0; i < 6; i++) {
                    sums[i] += Long.parseLong(m.group(i + 1));
                }
            }
        }
        double total = Math.max(1, sums[2]);
        long phases = sums[3] + sums[4] + sums[5];
        // With several workers the batches' sends and confirms overlap the next claims: their sums pass the runs'
        // wall time, and what the overlap hid is shown instead of a negative remainder.
        String rest = phases <= total ? String.format("other %.0f%%", 100 * (total - phases) / total)
                : String.format("overlapped %.0f%%", 100 * (phases - total) / total);
        return String.format("%d batches of %.0f on average; claim %.0f%%, send %.0f%%, confirm %.0f%%, %s"
                        + " of %,d ms in runs", sums[1], sums[0] / Math.max(1.0, sums[1]), 100 * sums[3] / total,
                100 * sums[4] / total, 100 * sums[5] / total, rest, sums[2]);
    }

    /**
     * Builds a pending backlog with the server stopped, starts it routed to one transport and waits until every
     * event is confirmed; the rate is from the first to the last confirm, as the table recorded them.
     */
    private Drain drain(Target target, String transport, int events) throws Exception {
        return drain(target, transport, events, WORKERS);
    }

    private Drain drain(Target target, String transport, int events, int workers) throws Exception {
        return drain(target, transport, events, workers, "");
    }

    /**
     * B2 to JMS: the embedded engine; at the sizes also the engine in a second server over loopback, and a
     * what-if with the engine's persistence mapped away, with what the server wrote to disk in each (issue 20: "a
     * measured proof that the embedded engine's persistence is the ceiling"). Returns the embedded drain.
     */
    private Drain jmsRows(BenchmarkTable table, double sql) throws Exception {
        Drain jms = drain(pg, "jms", EVENTS);
        table.add("B2 drain to JMS (embedded engine), " + EVENTS + " pending", rate(jms.rate()), ">= 5,000/s",
                "not measured", String.format("%.2f of B0 SQL; ", jms.rate() / sql) + jms.cpuBound());
        table.note(cpuNote("B2 JMS", jms.cpu(), jms.rate()));
        if (!FULL) {
            return jms;
        }
        Drain remote = remoteJmsDrain(pg, EVENTS);
        table.add("B2 drain to JMS (the engine in a second server, over loopback), " + EVENTS + " pending",
                rate(remote.rate()), ">= 5,000/s", "not measured", String.format("%.2f of the embedded engine's; ",
                        remote.rate() / jms.rate()) + remote.cpuBound());
        // What-if only: ReliableNonPersistent lets the engine keep persistent messages off its disk, so a crash may
        // lose them. The drain of 2026-12-06 wrote as much with it as without: it did not isolate the disk.
        Drain memory = drain(pg, "jms", EVENTS, WORKERS, "<jmsConnectionFactory id=\"DefaultJMSConnectionFactory\""
                + " jndiName=\"jms/DefaultJMSConnectionFactory\"><properties.wasJms"
                + " persistentMapping=\"ReliableNonPersistent\"/></jmsConnectionFactory>"
                // the publisher refuses such a factory otherwise (R4.7)
                + "<variable name=\"outbox.jms.require-assured-persistence\" value=\"false\"/>");
        table.add("B2 drain to JMS, what-if: the default connection factory with persistentMapping"
                        + " ReliableNonPersistent (which a crash may lose: never a supported setting), " + EVENTS
                        + " pending",
                rate(memory.rate()), "-", "-", String.format("%.2f of the persistent engine's; ", memory.rate()
                        / jms.rate()) + memory.cpuBound());
        // Whether the what-if kept the engine off its disk: what the server wrote in each drain's window.
        table.note("what the server had the kernel write to disk during the drain: " + written(jms) + " with"
                + " AssuredPersistent, " + written(memory) + " with ReliableNonPersistent (peak heap "
                + mb(memory.peakHeapBytes()) + " against " + mb(jms.peakHeapBytes()) + ")");
        table.note("where the JMS drains' time went (publisher run profiles): embedded " + jms.profile()
                + "; second server " + remote.profile() + "; ReliableNonPersistent " + memory.profile());
        table.note(cpuNote("B2 JMS, second server's engine (both servers count as server)", remote.cpu(), remote.rate())
                + "; " + cpuNote("B2 JMS, ReliableNonPersistent", memory.cpu(), memory.rate()));
        return jms;
    }

    /**
     * B2 to JMS with the messaging engine in another server (issue 20 item 1): the second crash server, its
     * publisher off, holds the queue in its engine, and the bench server sends through a connection factory that
     * reaches it over loopback TCP ({@code remoteServerAddress}). Both servers share this machine's cores.
     */
    private Drain remoteJmsDrain(Target target, int events) throws Exception {
        LibertyProcess engine = CrashServer.secondProcess(CrashServer.secondService()).measured();
        Properties bootstrap = new Properties();
        try (var in = Files.newBufferedReader(engine.serverDir().resolve("bootstrap.properties"))) {
            bootstrap.load(in);
        }
        String port = java.util.Objects.requireNonNull(bootstrap.getProperty("jms.port"),
                "jms.port in " + engine.serverDir().resolve("bootstrap.properties"));
        engine.stop();
        try {
            forgetQueuedMessages(engine);
            // Only the engine: no publisher and no cleanup runs of its own beside the measured server's.
            engine.writeOverride("bench.xml", "<server><variable name=\"outbox.publisher.enabled\" value=\"false\"/>"
                    + "<variable name=\"outbox.cleanup.enabled\" value=\"false\"/>"
                    + "<messagingEngine><queue id=\"BenchEvents\" maxMessageDepth=\"5000000\"/>"
                    + "<fileStore fileStoreSize=\"2000\" logFileSize=\"100\"/></messagingEngine></server>");
            Files.writeString(engine.serverDir().resolve("jvm.options"), HEAP + "\n");
            engine.use(runVariables(target));
            engine.start();
            return drain(target, "jms", events, WORKERS, "<jmsConnectionFactory id=\"RemoteEngine\""
                    + " jndiName=\"jms/RemoteEngine\"><properties.wasJms remoteServerAddress=\"localhost:" + port
                    + ":BootstrapBasicMessaging\" persistentMapping=\"AssuredPersistent\"/></jmsConnectionFactory>"
                    + "<variable name=\"outbox.jms.connection-factory\" value=\"jms/RemoteEngine\"/>");
        } finally {
            // Whatever failed: the second crash server stopped and back to how the crash suites expect it.
            try {
                engine.stop();
            } finally {
                try {
                    engine.kill();
                } finally {
                    engine.deleteOverride("bench.xml");
                    Files.deleteIfExists(engine.serverDir().resolve("jvm.options"));
                    engine.use(Map.of());
                    forgetQueuedMessages(engine);
                }
            }
        }
    }

    /** What the servers had the kernel write to storage in the drain's window (/proc/<pid>/io), in MB. */
    private static String written(Drain drain) {
        return mb(drain.cpu().writtenBytesByPart().getOrDefault("server", 0L));
    }

    private Drain drain(Target target, String transport, int events, int workers, String moreConfig) throws Exception {
        LibertyProcess server = target.server();
        OutboxDatabase db = target.db();
        server.stop();
        forgetQueuedMessages(server);
        Path trace = server.serverDir().resolve("logs/trace.log");
        Files.deleteIfExists(trace);
        String tag = "bench-" + UUID.randomUUID();
        String warmTag = "bench-warm-" + UUID.randomUUID();
        insertPending(target, WARM_EVENTS > 0 ? warmTag : tag, WARM_EVENTS > 0 ? WARM_EVENTS : events);
        analyze(target); // as the database's own maintenance leaves a table in production, for every drain
        // on the backlog about to drain, not on the table it leaves behind
        String plan = WARM_EVENTS > 0 ? "not taken (warm drain)" : claimPlan(target);
        startBenchServer(target, transport, workers, "<variable name=\"outbox.kafka.topic\" value=\"bench.{aggregateType}\"/>"
                + "<variable name=\"outbox.jms.destination.BenchNoted\" value=\"jms/BenchEvents\"/>" + moreConfig);
        long traceFrom = 0;
        if (WARM_EVENTS > 0) {
            await(Duration.ofSeconds(Math.max(120, WARM_EVENTS / 200)), WARM_EVENTS + " warm-up events delivered",
                    () -> {
                        pause(500);
                        return db.count("outbox_event", "state = 'PENDING' AND aggregate_type = 'Bench'");
                    }, n -> n == 0);
            db.execute("DELETE FROM outbox_event WHERE aggregate_type = 'Bench' AND aggregate_id LIKE '" + warmTag
                    + "-%'");
            traceFrom = Files.exists(trace) ? Files.size(trace) : 0; // the run profiles of the measured drain only
            insertPending(target, tag, events); // one statement: the whole backlog is due when it commits
        }
        String mine = "aggregate_type = 'Bench' AND aggregate_id LIKE '" + tag + "-%'";
        AtomicLong peak = new AtomicLong();
        List<CpuMeter.Sample> cpu = new java.util.concurrent.CopyOnWriteArrayList<>();
        cpu.add(CpuMeter.sample());
        // Observed cheaply, so the observer does not slow the drain: the pending rows on their index, the heap and
        // the CPU, twice a second. At least 200 events a second, or the drain is stuck (a full queue, a broker
        // away): fail rather than wait.
        await(Duration.ofSeconds(Math.max(120, events / 200)), events + " events delivered to " + transport, () -> {
            peak.accumulateAndGet(usedHeap(target), Math::max);
            cpu.add(CpuMeter.sample());
            pause(500);
            return db.count("outbox_event", "state = 'PENDING' AND aggregate_type = 'Bench'");
        }, n -> n == 0);
        Confirms confirms = Confirms.of(db, mine, events);
        cpu.add(CpuMeter.sample());
        server.stop();
        String profile = runProfile(server, traceFrom);
        db.execute("DELETE FROM outbox_event WHERE " + mine);
        // the database and this JVM read one machine clock, so the confirms' span picks the samples inside it
        CpuMeter.Usage usage = CpuMeter.within(cpu, confirms.first().toEpochMilli(), confirms.last().toEpochMilli());
        return new Drain(events / confirms.seconds(), peak.get(), profile, plan, usage);
    }

    /**
     * Issue 44: two servers on one database, one worker each, against one server, both in this run and measured the
     * same way: the servers are started and warmed by a drain of their own (a cluster meets a backlog after a broker
     * outage on servers that have run for a while, and two cold servers on two cores would also compile the
     * publishing path twice), then the backlog arrives in one statement, so neither server drains alone while the
     * other starts (B2's other rows start one server on a waiting backlog).
     */
    private void twoServerRows(BenchmarkTable table) throws Exception {
        Drain one = drainStarted(List.of(pg), EVENTS);
        Drain two = drainStarted(List.of(pg, pgSecond), EVENTS);
        table.add("B2 drain to Kafka, " + EVENTS + " pending arriving at warm servers, one server",
                rate(one.rate()), "-", "-", one.cpuBound());
        table.add("B2 drain to Kafka, " + EVENTS + " pending arriving at warm servers, 2 servers on one database",
                rate(two.rate()), ">= 0.9 of one server", "-",
                String.format("%.2f of one server; ", two.rate() / one.rate()) + two.cpuBound());
        table.note("where the drains' time went: one server " + one.profile() + "; 2 servers " + two.profile());
        table.note(cpuNote("B2 Kafka, one warm server", one.cpu(), one.rate()) + "; "
                + cpuNote("B2 Kafka, 2 servers (both count as server)", two.cpu(), two.rate()));
    }

    /** Starts the servers, then commits a backlog of {@code events} at once and measures its drain by all of them. */
    private Drain drainStarted(List<Target> servers, int events) throws Exception {
        OutboxDatabase db = servers.get(0).db();
        for (Target target : servers) {
            target.server().stop();
            forgetQueuedMessages(target.server());
            Files.deleteIfExists(target.server().serverDir().resolve("logs/trace.log"));
            startBenchServer(target, "kafka", WORKERS,
                    "<variable name=\"outbox.kafka.topic\" value=\"bench.{aggregateType}\"/>");
        }
        String warmTag = "bench-warm-" + UUID.randomUUID();
        int warm = Math.min(events, 20_000);
        insertPending(servers.get(0), warmTag, warm);
        await(Duration.ofSeconds(Math.max(120, warm / 200)), warm + " warm-up events delivered", () -> {
            pause(500);
            return db.count("outbox_event", "state = 'PENDING' AND aggregate_type = 'Bench'");
        }, n -> n == 0);
        db.execute("DELETE FROM outbox_event WHERE aggregate_type = 'Bench' AND aggregate_id LIKE '" + warmTag + "-%'");
        long[] traceFrom = new long[servers.size()];
        for (int i = 0; i < servers.size(); i++) {
            Path trace = servers.get(i).server().serverDir().resolve("logs/trace.log");
            traceFrom[i] = Files.exists(trace) ? Files.size(trace) : 0; // the measured drain's run profiles only
        }
        String tag = "bench-" + UUID.randomUUID();
        String mine = "aggregate_type = 'Bench' AND aggregate_id LIKE '" + tag + "-%'";
        List<CpuMeter.Sample> cpu = new java.util.concurrent.CopyOnWriteArrayList<>();
        cpu.add(CpuMeter.sample());
        insertPending(servers.get(0), tag, events); // one statement: the whole backlog is due when it commits
        await(Duration.ofSeconds(Math.max(120, events / 200)), events + " events delivered by " + servers.size()
                + " server(s)", () -> {
                    cpu.add(CpuMeter.sample());
                    pause(500);
                    return db.count("outbox_event", "state = 'PENDING' AND aggregate_type = 'Bench'");
                }, n -> n == 0);
        Confirms confirms = Confirms.of(db, mine, events);
        cpu.add(CpuMeter.sample());
        Map<String, Long> byServer = db.countBy("outbox_event", "claimed_by", mine);
        List<String> profiles = new ArrayList<>();
        for (int i = 0; i < servers.size(); i++) {
            servers.get(i).server().stop();
            profiles.add(runProfile(servers.get(i).server(), traceFrom[i]));
        }
        db.execute("DELETE FROM outbox_event WHERE " + mine);
        String profile = String.join(" and ", profiles) + (servers.size() > 1 ? " (events by claimer: " + byServer
                + ")" : "");
        return new Drain(events / confirms.seconds(), 0, profile, "not taken",
                CpuMeter.within(cpu, confirms.first().toEpochMilli(), confirms.last().toEpochMilli()));
    }

    /**
     * Starts the crash server routed to {@code transport} with the benchmark's publisher settings, a queue nobody
     * reads for the JMS drain, FINE run profiles, and {@code moreConfig}.
     */
    private static void startBenchServer(Target target, String transport, String moreConfig) throws Exception {
        startBenchServer(target, transport, WORKERS, moreConfig);
    }

    private static void startBenchServer(Target target, String transport, int workers, String moreConfig)
            throws Exception {
        LibertyProcess server = target.server();
        server.writeOverride("bench.xml", "<server>"
                + "<variable name=\"outbox.publisher.transport\" value=\"" + transport + "\"/>"
                + "<variable name=\"outbox.publisher.batch-size\" value=\"" + BATCH + "\"/>"
                + "<variable name=\"outbox.publisher.workers\" value=\"" + workers + "\"/>"
                + "<variable name=\"outbox.kafka.bootstrap-servers\" value=\"" + KAFKA + "\"/>"
                + "<variable name=\"example.benchmark\" value=\"true\"/>"
                + (INBOX_BATCH.isBlank() ? "" : "<variable name=\"outbox.inbox.batch-size\" value=\"" + INBOX_BATCH + "\"/>")
                + moreConfig
                + "<logging traceSpecification=\"*=info:dev.outbox.internal.publish.Publisher=fine\" maxFiles=\"30\"/>"
                + "<messagingEngine><queue id=\"BenchEvents\" maxMessageDepth=\"5000000\"/>"
                + "<fileStore fileStoreSize=\"2000\" logFileSize=\"100\"/></messagingEngine>"
                + "<jmsQueue id=\"BenchQueue\" jndiName=\"jms/BenchEvents\"><properties.wasJms queueName=\"BenchEvents\"/>"
                + "</jmsQueue></server>");
        server.use(runVariables(target));
        server.start();
    }

    /**
     * The target's own variables and a normal lease: the crash server's 2 s lease (crash.xml, applied after
     * bench.xml) is shorter than a Kafka send may take, which start-up refuses; the benchmark measures drains, not
     * takeovers.
     */
    private static Map<String, String> runVariables(Target target) {
        Map<String, String> variables = new java.util.HashMap<>(target.variables());
        variables.put("outbox.publisher.lease-ms", String.valueOf(BENCH_LEASE.toMillis()));
        return variables;
    }

    /**
     * B1: the example's note command (read, conditional update of the order, one event) against the same command
     * without the event, 8 callers inside the server, in alternating rounds. The publisher is off, so the figure
     * is the cost inside the business transaction; the drain's own load is B2's subject.
     */
    private static jakarta.json.JsonObject writeOverhead(Target target) throws Exception {
        LibertyProcess server = target.server();
        server.stop();
        long millis = FULL ? 5000 : 1000;
        int rounds = FULL ? 4 : 1;
        startBenchServer(target, "jms", "<variable name=\"outbox.publisher.enabled\" value=\"false\"/>");
        ExampleService.Reply reply = target.service().benchmark("write-overhead?callers=8&millis=" + millis + "&rounds=" + rounds,
                Duration.ofMillis(rounds * millis * 2 + 60_000));
        assertEquals(200, reply.status(), "the write-overhead load ran: " + reply.raw());
        server.stop();
        target.db().execute("DELETE FROM outbox_event WHERE aggregate_type = 'Order'");
        return reply.body();
    }

    /**
     * B1 with tracing on (R6.7): the server's OpenTelemetry SDK on, exporting over OTLP to a sink in this test, and
     * every command of both sides in a span, so each recorded event stores its trace context. Compared with the
     * untraced row of the same run: what tracing costs the outbox's share of a business transaction.
     */
    private static jakarta.json.JsonObject tracedWriteOverhead(Target target) throws Exception {
        LibertyProcess server = target.server();
        server.stop();
        long millis = FULL ? 5000 : 1000;
        int rounds = FULL ? 4 : 1;
        try (OtlpSink sink = OtlpSink.start()) {
            server.environment(sink.serverEnvironment());
            try {
                // the crash servers leave MicroProfile Telemetry out (example.tracing=off): this run adds it back
                startBenchServer(target, "jms", "<variable name=\"outbox.publisher.enabled\" value=\"false\"/>"
                        + "<featureManager><feature>mpTelemetry-2.1</feature></featureManager>");
                ExampleService.Reply reply = target.service().benchmark("write-overhead?callers=8&traced=true&millis="
                        + millis + "&rounds=" + rounds, Duration.ofMillis(rounds * millis * 2 + 60_000));
                assertEquals(200, reply.status(), "the traced write-overhead load ran: " + reply.raw());
                server.stop(); // flushes the last spans
                long traced = target.db().count("outbox_event", "aggregate_type = 'Order' AND trace_parent IS NOT NULL");
                assertTrue(traced > 0 && sink.exports() > 0, "the events stored their trace context (" + traced
                        + ") and the server exported spans (" + sink.exports() + " exports)");
                System.out.printf("benchmark traced B1: %,d events with a trace context, %,d OTLP exports, %,d bytes%n",
                        traced, sink.exports(), sink.bytes());
                return reply.body();
            } finally {
                server.environment(Map.of());
                server.stop();
                target.db().execute("DELETE FROM outbox_event WHERE aggregate_type = 'Order'");
            }
        }
    }

    /** @param stages where the time went: p50 / p99 of each step (see {@link #stagesOf} for the clocks each reads) */
    private record Latency(double p50, double p99, double publishP99, long peakPerSecond, long events, double seconds,
                           int requested, String stages, CpuMeter.Usage cpu) {
    }

    private static void latencyRow(BenchmarkTable table, String transport, String target,
                                   java.util.Map<String, Latency> byConsumer) {
        byConsumer.forEach((consumer, l) -> table.add(String.format("B3 commit-to-consumer latency via %s, %d events/s"
                        + " asked, %,.0f achieved, for %.0f s (consumer %s)", transport, l.requested(),
                        l.events() / l.seconds(), l.seconds(), consumer),
                String.format("p50 %.0f ms, p99 %.0f ms", l.p50(), l.p99()), target, "not measured",
                String.format("p99 %.0f ms of it to the publisher's confirm; the consumer's best second %,d events;"
                        + " p50 / p99 by step: %s; during the load cores %.0f%% busy, CPU ms per event %s",
                        l.publishP99(), l.peakPerSecond(), l.stages(), 100 * l.cpu().busyShare(),
                        l.cpu().perEvent(l.events() / l.seconds()))));
    }

    /**
     * B3: notes at a steady rate through one transport to the example's inbox consumers; latency per event from
     * its created_at (set as it is recorded, just before the commit) to the consumer's inbox mark (processed_at,
     * in the consumer's transaction), read from the database afterwards, per consumer.
     */
    private java.util.Map<String, Latency> latency(String transport, int perSecond, List<String> consumers)
            throws Exception {
        LibertyProcess server = pg.server();
        ExampleService service = pg.service();
        OutboxDatabase db = pg.db();
        server.stop();
        String run = "b3" + UUID.randomUUID().toString().substring(0, 8);
        // A topic and consumer groups of this run only, so no other test's records reach these consumers.
        startBenchServer(pg, transport, "<variable name=\"outbox.kafka.topic\" value=\"" + run + ".{aggregateType}\"/>"
                + "<variable name=\"example.kafka.enabled\" value=\"true\"/>"
                + "<variable name=\"example.invoicing.topic\" value=\"" + run + ".Order\"/>"
                + "<variable name=\"example.invoicing.group\" value=\"" + run + "-invoicing\"/>"
                + "<variable name=\"mp.messaging.incoming.order-events.topic\" value=\"" + run + ".Order\"/>"
                + "<variable name=\"mp.messaging.incoming.order-events.group.id\" value=\"" + run + "-loyalty\"/>");
        int orders = FULL ? 500 : 100;
        long millis = FULL ? 15_000 : 3_000;
        assertEquals(200, service.benchmark("orders?customer=" + run + "&count=" + orders, Duration.ofMinutes(2))
                .status(), "orders placed for the steady load");
        String mine = "e.aggregate_id IN (SELECT order_id FROM orders WHERE customer_id = '" + run + "')";
        for (String consumer : consumers) {
            // Warm: every consumer has its partitions and has applied the orders' OrderPlaced before we measure.
            awaitApplied(consumer, mine, orders, "OrderPlaced");
        }
        // Warm-up: the same load for a while on a fresh server (JIT, pools, consumer fetch sessions), consumed
        // before the measured part starts; only events recorded after that count. At least 4,000 commands: after 8 s
        // at 100 events/s the JIT was still compiling for half of the measured 15 s (a profile of 2026-12-06).
        long warmUp = FULL ? Math.max(8_000, 4_000_000L / perSecond) : 1_000;
        ExampleService.Reply warm = service.benchmark("steady?customer=" + run + "&rate=" + perSecond + "&millis="
                + warmUp, Duration.ofMillis(warmUp + 60_000));
        assertEquals(200, warm.status(), "the warm-up load ran: " + warm.raw());
        long warmNotes = warm.body().getJsonNumber("notes").longValue();
        for (String consumer : consumers) {
            awaitApplied(consumer, mine + " AND e.event_type = 'OrderNoted'", warmNotes, "warm-up OrderNoted");
        }
        String since = String.valueOf(db.rows("SELECT CAST(now() AS TEXT)").get(0).get(0));
        String measured = mine + " AND e.created_at >= CAST('" + since + "' AS TIMESTAMP WITH TIME ZONE)";
        CpuMeter.Sample loadStarts = CpuMeter.sample();
        ExampleService.Reply steady = service.benchmark("steady?customer=" + run + "&rate=" + perSecond + "&millis="
                + millis, Duration.ofMillis(millis + 60_000));
        CpuMeter.Usage cpu = CpuMeter.between(loadStarts, CpuMeter.sample());
        assertEquals(200, steady.status(), "the steady load ran: " + steady.raw());
        long notes = steady.body().getJsonNumber("notes").longValue();
        java.util.Map<String, Latency> byConsumer = new java.util.LinkedHashMap<>();
        for (String consumer : consumers) {
            awaitApplied(consumer, measured + " AND e.event_type = 'OrderNoted'", notes, "OrderNoted");
        }
        // The publisher's share: from the event's commit to its confirm as sent (delivered_at, the database's clock).
        double publishP99 = ((Number) db.rows("SELECT percentile_cont(0.99) WITHIN GROUP (ORDER BY EXTRACT(EPOCH FROM"
                + " (e.delivered_at - e.created_at)) * 1000) FROM outbox_event e WHERE " + measured
                + " AND e.event_type = 'OrderNoted'").get(0).get(0)).doubleValue();
        for (String consumer : consumers) {
            double[] total = p50AndP99(db, consumer, measured, "p.processed_at - e.created_at");
            // The consumer's best second: above the asked rate, it could keep up alone and shares the cores.
            long peak = ((Number) db.rows("SELECT MAX(n) FROM (SELECT COUNT(*) AS n FROM " + marksOf(consumer)
                    + " WHERE " + measured + " GROUP BY date_trunc('second', p.processed_at)) s").get(0).get(0)).longValue();
            byConsumer.put(consumer, new Latency(total[0], total[1], publishP99, peak, notes, steady.body().getJsonNumber("seconds").doubleValue(), perSecond,
                    stagesOf(db, consumer, measured), cpu));
        }
        server.stop();
        return byConsumer;
    }

    /**
     * Where B3's time goes, step by step: recorded (created_at, the server's clock, before the commit) to claimed
     * (the claim transaction's start by the database's clock: its next_attempt_at is that plus the lease), claimed
     * to confirmed (delivered_at, the confirm transaction's start, the database's clock: the send and its acks lie
     * between), confirmed to the consumer's inbox mark (processed_at, the server's clock). Server and database share
     * this machine's clock; a mark can precede its confirm (the consumer may read before the confirm starts). A row
     * delivered on a second attempt counts from its last claim.
     */
    private static String stagesOf(OutboxDatabase db, String consumer, String measured) {
        String claimedAt = "(e.next_attempt_at - INTERVAL '" + BENCH_LEASE.toSeconds() + " seconds')";
        String[][] steps = {
                {"to claim", claimedAt + " - e.created_at"},
                {"claim to confirm", "e.delivered_at - " + claimedAt},
                {"confirm to mark", "p.processed_at - e.delivered_at"}};
        List<String> described = new ArrayList<>();
        for (String[] step : steps) {
            double[] ms = p50AndP99(db, consumer, measured, step[1]);
            described.add(String.format("%s %.0f / %.0f ms", step[0], ms[0], ms[1]));
        }
        return String.join(", ", described);
    }

    /** p50 and p99, in ms, of the interval {@code elapsed} over the measured OrderNoted events the consumer marked. */
    private static double[] p50AndP99(OutboxDatabase db, String consumer, String measured, String elapsed) {
        List<Object> row = db.rows("SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY ms),"
                + " percentile_cont(0.99) WITHIN GROUP (ORDER BY ms) FROM (SELECT EXTRACT(EPOCH FROM (" + elapsed
                + ")) * 1000 AS ms FROM " + marksOf(consumer) + " WHERE " + measured
                + " AND e.event_type = 'OrderNoted') l").get(0);
        return new double[] {((Number) row.get(0)).doubleValue(), ((Number) row.get(1)).doubleValue()};
    }

    /** Events joined to one consumer's inbox marks: {@code e} is outbox_event, {@code p} processed_event. */
    private static String marksOf(String consumer) {
        return "outbox_event e JOIN processed_event p ON p.event_id = e.event_id AND p.consumer = '" + consumer + "'";
    }

    /** Waits until {@code consumer} has applied (marked in its inbox) {@code expected} events matching {@code where}. */
    private void awaitApplied(String consumer, String where, long expected, String what) {
        await(Duration.ofMinutes(2), consumer + " applied the " + expected + " " + what,
                () -> pg.db().count(marksOf(consumer), where), n -> n == expected);
    }

    /** A pending backlog of {@code events} rows of aggregate type Bench (see {@link BenchDatabase}). */
    private static void insertPending(Target target, String tag, int events) {
        target.db().execute(target.kind().insertPending(tag, events));
    }

    /** Delivered rows of another aggregate type, as a table looks after a while in production. */
    private static void insertHistory(Target target, int rows) {
        target.db().execute(target.kind().insertHistory(rows));
        analyze(target);
    }

    private static void analyze(Target target) {
        target.db().using(connection -> {
            try (Statement statement = connection.createStatement()) {
                statement.execute(target.kind().analyze());
            }
            return null;
        });
    }

    /** How much of the cores B0's one-connection loop kept busy: it waits on round trips, not on the CPU. */
    private static String sqlCpu(SqlLimit limit) {
        return String.format("cores %.0f%% busy", 100 * limit.cpu().busyShare());
    }

    /** "B2 Kafka: cores 88% busy; server 0.21, broker 0.09, ..." per event. */
    private static String cpuNote(String what, CpuMeter.Usage cpu, double eventsPerSecond) {
        return !cpu.measured() ? what + ": CPU not sampled (too short)" : String.format(
                "%s: cores %.0f%% busy over %.1f s; per event %s", what, 100 * cpu.busyShare(), cpu.seconds(),
                cpu.perEvent(eventsPerSecond));
    }

    /** B0's SQL limit: its rate, and where the machine's CPU went while the loop ran. */
    private record SqlLimit(double rate, CpuMeter.Usage cpu) {
    }

    /**
     * B0: the publisher's claim (the dialect's claim, strict ordering) and confirm statements, batch after batch
     * in short transactions, with nothing sent in between.
     */
    private static SqlLimit rawClaimAndConfirm(Target target, int events) throws Exception {
        String tag = "bench-sql-" + UUID.randomUUID();
        insertPending(target, tag, events);
        analyze(target); // the same start as every drain
        Dialect dialect = target.kind().dialect();
        CpuMeter.Sample before = CpuMeter.sample();
        CpuMeter.Usage cpu;
        long start = System.nanoTime();
        int confirmed = 0;
        try (Connection connection = DriverManager.getConnection(target.jdbc(), "outbox", "outbox")) {
            connection.setAutoCommit(false);
            // The servers' datasources run READ COMMITTED (MariaDB's default is REPEATABLE READ)
            connection.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
            while (true) {
                List<OutboundEvent> claimed = dialect.claim(connection, new ClaimRequest("bench", BATCH,
                        Duration.ofSeconds(30), true, Set.of()));
                OffsetDateTime now = Sql.clock(connection);
                connection.commit();
                if (claimed.isEmpty()) {
                    break;
                }
                dialect.confirm(connection, "bench", now, claimed.stream().map(event -> new Delivery(
                        event.id().value(), event.leaseVersion(), "raw", null, null)).toList());
                connection.commit();
                confirmed += claimed.size();
            }
            cpu = CpuMeter.between(before, CpuMeter.sample()); // while its backend still runs
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        assertEquals(events, confirmed, "the raw loop claimed and confirmed every event once");
        target.db().execute("DELETE FROM outbox_event WHERE aggregate_id LIKE '" + tag + "-%'");
        return new SqlLimit(events / seconds, cpu);
    }

    /** The Kafka transport's producer settings (acks=all, idempotent, linger 5 ms, 128 KiB batches). */
    private static Properties producerSettings() {
        Properties properties = new Properties();
        properties.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, KAFKA);
        properties.put(ProducerConfig.ACKS_CONFIG, "all");
        properties.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
        properties.put(ProducerConfig.LINGER_MS_CONFIG, "5");
        properties.put(ProducerConfig.BATCH_SIZE_CONFIG, "131072");
        properties.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        properties.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        return properties;
    }

    /** B0: a producer with the transport's settings, as fast as it goes. */
    private double rawKafkaProducer(int records) throws Exception {
        Properties properties = producerSettings();
        String payload = "{\"n\":1,\"pad\":\"" + "x".repeat(150) + "\"}";
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(properties)) {
            producer.send(new ProducerRecord<>("bench.raw", "warm-up", payload)).get(); // topic and metadata
            long start = System.nanoTime();
            List<Future<RecordMetadata>> acks = new ArrayList<>(records);
            for (int i = 0; i < records; i++) {
                acks.add(producer.send(new ProducerRecord<>("bench.raw", "bench-" + (i % 1000), payload)));
            }
            for (Future<RecordMetadata> ack : acks) {
                ack.get();
            }
            return records / ((System.nanoTime() - start) / 1e9);
        }
    }

    /**
     * The plan the database chooses for the claim's candidate query (strict ordering, the benchmark's batch size):
     * PostgreSQL's plan lines, or MariaDB's EXPLAIN rows with every column that has a value.
     */
    private static String claimPlan(Target target) throws Exception {
        OffsetDateTime now = OffsetDateTime.now(ZoneOffset.UTC);
        ClaimRequest request = new ClaimRequest("bench", BATCH, Duration.ofSeconds(30), true, Set.of());
        try (Connection connection = DriverManager.getConnection(target.jdbc(), "outbox", "outbox");
             PreparedStatement explain = connection.prepareStatement("EXPLAIN SELECT e.event_id "
                     + Claims.candidates(request) + " FOR UPDATE SKIP LOCKED")) {
            Claims.bindCandidates(explain, 1, request, now);
            StringBuilder plan = new StringBuilder();
            try (ResultSet rs = explain.executeQuery()) {
                int columns = rs.getMetaData().getColumnCount();
                while (rs.next()) {
                    plan.append(plan.length() == 0 ? "" : " / ");
                    if (columns == 1) {
                        plan.append(rs.getString(1).strip());
                        continue;
                    }
                    List<String> cells = new ArrayList<>();
                    for (int c = 1; c <= columns; c++) {
                        if (rs.getString(c) != null) {
                            cells.add(rs.getMetaData().getColumnLabel(c) + "=" + rs.getString(c));
                        }
                    }
                    plan.append(String.join(" ", cells));
                }
            }
            return "`" + plan + "`";
        }
    }

    private static final Pattern USED_HEAP = Pattern.compile("^memory_usedHeap_bytes\\{[^}]*\\} (\\S+)$",
            Pattern.MULTILINE);

    /** The server's used heap from MicroProfile Metrics' base scope; 0 when it does not answer. */
    private long usedHeap(Target target) {
        try {
            HttpResponse<String> response = http.send(HttpRequest.newBuilder(URI.create(
                    target.baseUrl() + "/metrics?scope=base")).header("Accept", "text/plain")
                    .timeout(Duration.ofSeconds(5)).build(), HttpResponse.BodyHandlers.ofString());
            Matcher m = USED_HEAP.matcher(response.body());
            return m.find() ? (long) Double.parseDouble(m.group(1)) : 0;
        } catch (Exception e) {
            return 0;
        }
    }

    private static int intSetting(String name, int fallback) {
        String value = System.getProperty(name, "");
        return value.isBlank() ? fallback : Integer.parseInt(value.trim());
    }

    private static void pause(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static String rate(double perSecond) {
        return String.format("%,.0f events/s", perSecond);
    }

    private static String mb(long bytes) {
        return String.format("%,d MB", bytes / (1024 * 1024));
    }
}
