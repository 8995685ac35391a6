package dev.outbox.it.bench;

import dev.outbox.it.support.ExampleService;
import dev.outbox.it.support.LibertyProcess;
import dev.outbox.it.support.OutboxDatabase;
import dev.outbox.it.support.Settings;
import dev.outbox.schema.ClaimRequest;
import dev.outbox.schema.Dialect;
import dev.outbox.schema.PostgreSqlDialect;
import dev.outbox.transport.OutboundEvent;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterEach;
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
 *     <li>B0: the raw rate of the publisher's own claim-and-confirm SQL on this PostgreSQL with no broker, and
 *     the raw rate of a Kafka producer with the transport's settings and no database;</li>
 *     <li>B2: a pending backlog drained by the server to Kafka and to the embedded JMS engine (a queue nobody
 *     reads), from first to last confirm in the table;</li>
 *     <li>B4: the Kafka drain again with delivered history in the table, and the claim query's plan;</li>
 *     <li>B5: the server's peak used heap (base metric, sampled) while draining the backlog and a bigger one,
 *     under a fixed maximum heap.</li>
 * </ul>
 * Write overhead (B1), latency (B3) and the peer (gruelbox transaction-outbox) are not measured yet.
 */
@EnabledIfSystemProperty(named = "it.db", matches = "postgresql")
class OutboxBenchmarkIT {

    private static final String JDBC = Settings.required("it.crash.jdbc.url");
    private static final String KAFKA = Settings.required("it.kafka.bootstrap");
    private static final int EVENTS = Integer.parseInt(Settings.required("it.bench.events"));
    private static final int HISTORY = Integer.parseInt(Settings.required("it.bench.history"));
    private static final int BIG = Integer.parseInt(Settings.required("it.bench.big"));
    private static final String MODE = Settings.required("it.bench.mode");
    private static final String HEAP = "-Xmx512m";

    private final ExampleService service = new ExampleService(Settings.required("it.crash.base.url"));
    private final LibertyProcess server = new LibertyProcess(Path.of(Settings.required("it.wlp")), "outbox-it-crash",
            service);
    private final OutboxDatabase db = new OutboxDatabase(JDBC, "outbox", "outbox");
    private final HttpClient http = HttpClient.newHttpClient();

    @AfterEach
    void restoreTheCrashServer() throws Exception {
        server.stop();
        server.kill();
        server.deleteOverride("bench.xml");
        Files.deleteIfExists(server.serverDir().resolve("jvm.options"));
        forgetQueuedMessages();
    }

    /**
     * Nobody reads the JMS drain's queue, so its messages stay in the engine's file store: start each drain, and
     * leave, with an empty store rather than fill it (CWSOM1042E) or hand later tests a big one.
     */
    private void forgetQueuedMessages() throws java.io.IOException {
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
    void theDrainRatesAgainstTheMachinesLimits() throws Exception {
        BenchmarkTable table = new BenchmarkTable();
        server.deleteOverride("failpoint.xml");
        server.start(); // creates the schema when the benchmark runs on a fresh database
        server.stop();
        Files.writeString(server.serverDir().resolve("jvm.options"), HEAP + "\n");
        db.execute("DELETE FROM outbox_event");

        double sql = rawClaimAndConfirm(EVENTS);
        table.add("B0 claim+confirm SQL, no broker (" + EVENTS + " events, batches of 100)", rate(sql), "-", "-", "-");
        double producer = rawKafkaProducer(EVENTS);
        table.add("B0 Kafka producer, no database (" + EVENTS + " records)", rate(producer), "-", "-", "-");

        Drain kafka = drain("kafka", EVENTS);
        table.add("B2 drain to Kafka, " + EVENTS + " pending", rate(kafka.rate()), ">= 20,000/s", "not measured",
                String.format("%.2f of the slower B0 limit", kafka.rate() / Math.min(sql, producer)));
        Drain jms = drain("jms", EVENTS);
        table.add("B2 drain to JMS (embedded engine), " + EVENTS + " pending", rate(jms.rate()), ">= 5,000/s",
                "not measured", String.format("%.2f of B0 SQL", jms.rate() / sql));

        insertHistory(HISTORY);
        Drain withHistory = drain("kafka", EVENTS);
        table.add("B4 drain to Kafka with " + HISTORY + " delivered rows in the table", rate(withHistory.rate()),
                "ratio >= 0.9", "-", String.format("%.2f of the empty-table drain", withHistory.rate() / kafka.rate()));
        table.note("B4 claim plan: " + claimPlan());

        Drain big = drain("kafka", BIG);
        table.add("B5 peak used heap draining " + EVENTS + " / " + BIG + " events (" + HEAP + ")",
                mb(kafka.peakHeapBytes()) + " / " + mb(big.peakHeapBytes()), "bounded by the batch, not the backlog",
                "-", String.format("%.2f", (double) big.peakHeapBytes() / Math.max(1, kafka.peakHeapBytes())));
        table.note("publisher settings: batch-size 100, one run drains up to 100 batches, lease 2 s (crash server)");
        table.write(Path.of(Settings.required("it.bench.out")), MODE);

        assertTrue(kafka.rate() > 0 && jms.rate() > 0 && withHistory.rate() > 0, "every drain delivered");
    }

    private record Drain(double rate, long peakHeapBytes) {
    }

    /**
     * Builds a pending backlog with the server stopped, starts it routed to one transport and waits until every
     * event is confirmed; the rate is from the first to the last confirm, as the table recorded them.
     */
    private Drain drain(String transport, int events) throws Exception {
        server.stop();
        forgetQueuedMessages();
        String tag = "bench-" + UUID.randomUUID();
        insertPending(tag, events);
        server.writeOverride("bench.xml", "<server>"
                + "<variable name=\"outbox.publisher.transport\" value=\"" + transport + "\"/>"
                + "<variable name=\"outbox.kafka.bootstrap-servers\" value=\"" + KAFKA + "\"/>"
                + "<variable name=\"outbox.kafka.topic\" value=\"bench.{aggregateType}\"/>"
                + "<variable name=\"outbox.jms.destination.BenchNoted\" value=\"jms/BenchEvents\"/>"
                + "<messagingEngine><queue id=\"BenchEvents\" maxMessageDepth=\"5000000\"/>"
                + "<fileStore fileStoreSize=\"2000\" logFileSize=\"100\"/></messagingEngine>"
                + "<jmsQueue id=\"BenchQueue\" jndiName=\"jms/BenchEvents\"><properties.wasJms queueName=\"BenchEvents\"/>"
                + "</jmsQueue></server>");
        server.start();
        String mine = "aggregate_type = 'Bench' AND aggregate_id LIKE '" + tag + "-%'";
        AtomicLong peak = new AtomicLong();
        // At least 200 events a second, or the drain is stuck (a full queue, a broker away): fail rather than wait.
        await(Duration.ofSeconds(Math.max(120, events / 200)), events + " events delivered to " + transport, () -> {
            peak.accumulateAndGet(usedHeap(), Math::max);
            return db.count("outbox_event", mine + " AND state = 'DELIVERED'");
        }, n -> n == events);
        double seconds = ((Number) db.rows("SELECT EXTRACT(EPOCH FROM (MAX(delivered_at) - MIN(delivered_at)))"
                + " FROM outbox_event WHERE " + mine).get(0).get(0)).doubleValue();
        assertEquals(0, db.count("outbox_event", mine + " AND state <> 'DELIVERED'"), "nothing parked or left");
        server.stop();
        db.execute("DELETE FROM outbox_event WHERE " + mine);
        return new Drain(events / Math.max(seconds, 0.001), peak.get());
    }

    /** Rows as the recorder writes them: 1000 aggregates, versions in order, a 170-byte payload. */
    private void insertPending(String tag, int events) {
        db.execute("INSERT INTO outbox_event (event_id, aggregate_type, aggregate_id, aggregate_version, event_type,"
                + " schema_version, payload, created_at, state, attempts, next_attempt_at, lease_version)"
                + " SELECT gen_random_uuid(), 'Bench', ? || '-' || (g % 1000), g / 1000 + 1, 'BenchNoted', 1,"
                + " '{\"n\":' || g || ',\"pad\":\"' || repeat('x', 150) || '\"}', now(), 'PENDING', 0, now(), 0"
                + " FROM generate_series(0, ? - 1) g", tag, events);
    }

    /** Delivered rows of another aggregate type, as a table looks after a while in production. */
    private void insertHistory(int rows) {
        db.execute("INSERT INTO outbox_event (event_id, aggregate_type, aggregate_id, aggregate_version, event_type,"
                + " schema_version, payload, created_at, state, attempts, next_attempt_at, lease_version,"
                + " delivered_at, broker_message_id, claimed_by)"
                + " SELECT gen_random_uuid(), 'History', 'h-' || (g % 100000), g / 100000 + 1, 'HistoryNoted', 1,"
                + " '{\"pad\":\"' || repeat('y', 150) || '\"}', now(), 'DELIVERED', 1, now(), 1, now(), 'bench', 'bench'"
                + " FROM generate_series(0, ? - 1) g", rows);
        db.execute("ANALYZE outbox_event");
    }

    /**
     * B0: the publisher's claim (PostgreSqlDialect.claim, strict ordering) and confirm statements, batch after
     * batch in short transactions, with nothing sent in between.
     */
    private double rawClaimAndConfirm(int events) throws Exception {
        String tag = "bench-sql-" + UUID.randomUUID();
        insertPending(tag, events);
        Dialect dialect = new PostgreSqlDialect();
        long start = System.nanoTime();
        int confirmed = 0;
        try (Connection connection = DriverManager.getConnection(JDBC, "outbox", "outbox")) {
            connection.setAutoCommit(false);
            while (true) {
                OffsetDateTime now = OffsetDateTime.now(ZoneOffset.UTC);
                List<OutboundEvent> claimed = dialect.claim(connection, new ClaimRequest("bench", 100, now,
                        now.plusSeconds(30), true, Set.of()));
                connection.commit();
                if (claimed.isEmpty()) {
                    break;
                }
                try (PreparedStatement confirm = connection.prepareStatement(Dialect.CONFIRM)) {
                    for (OutboundEvent event : claimed) {
                        confirm.setObject(1, now);
                        confirm.setString(2, "raw");
                        confirm.setNull(3, java.sql.Types.INTEGER);
                        confirm.setNull(4, java.sql.Types.BIGINT);
                        confirm.setObject(5, event.id().value());
                        confirm.setString(6, "bench");
                        confirm.setLong(7, event.leaseVersion());
                        confirm.addBatch();
                    }
                    confirm.executeBatch();
                }
                connection.commit();
                confirmed += claimed.size();
            }
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        assertEquals(events, confirmed, "the raw loop claimed and confirmed every event once");
        db.execute("DELETE FROM outbox_event WHERE aggregate_id LIKE '" + tag + "-%'");
        return events / seconds;
    }

    /** B0: the Kafka transport's producer settings (acks=all, idempotent, linger 5 ms, 128 KiB batches). */
    private double rawKafkaProducer(int records) throws Exception {
        Properties properties = new Properties();
        properties.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, KAFKA);
        properties.put(ProducerConfig.ACKS_CONFIG, "all");
        properties.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
        properties.put(ProducerConfig.LINGER_MS_CONFIG, "5");
        properties.put(ProducerConfig.BATCH_SIZE_CONFIG, "131072");
        properties.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        properties.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
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

    /** The plan PostgreSQL chooses for the claim's candidate query (strict ordering, batch of 100). */
    private String claimPlan() throws Exception {
        OffsetDateTime now = OffsetDateTime.now(ZoneOffset.UTC);
        ClaimRequest request = new ClaimRequest("bench", 100, now, now.plusSeconds(30), true, Set.of());
        try (Connection connection = DriverManager.getConnection(JDBC, "outbox", "outbox");
             PreparedStatement explain = connection.prepareStatement("EXPLAIN SELECT e.event_id "
                     + Dialect.candidates(request) + " FOR UPDATE SKIP LOCKED")) {
            Dialect.bindCandidates(explain, 1, request);
            StringBuilder plan = new StringBuilder();
            try (ResultSet rs = explain.executeQuery()) {
                while (rs.next()) {
                    plan.append(plan.length() == 0 ? "" : " / ").append(rs.getString(1).strip());
                }
            }
            return "`" + plan + "`";
        }
    }

    private static final Pattern USED_HEAP = Pattern.compile("^memory_usedHeap_bytes\\{[^}]*\\} (\\S+)$",
            Pattern.MULTILINE);

    /** The server's used heap from MicroProfile Metrics' base scope; 0 when it does not answer. */
    private long usedHeap() {
        try {
            HttpResponse<String> response = http.send(HttpRequest.newBuilder(URI.create(
                    Settings.required("it.crash.base.url") + "/metrics?scope=base")).header("Accept", "text/plain")
                    .timeout(Duration.ofSeconds(5)).build(), HttpResponse.BodyHandlers.ofString());
            Matcher m = USED_HEAP.matcher(response.body());
            return m.find() ? (long) Double.parseDouble(m.group(1)) : 0;
        } catch (Exception e) {
            return 0;
        }
    }

    private static String rate(double perSecond) {
        return String.format("%,.0f events/s", perSecond);
    }

    private static String mb(long bytes) {
        return String.format("%,d MB", bytes / (1024 * 1024));
    }
}
