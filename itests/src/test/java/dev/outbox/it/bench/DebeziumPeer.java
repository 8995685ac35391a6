package dev.outbox.it.bench;

import dev.outbox.it.support.OutboxDatabase;
import io.debezium.embedded.Connect;
import io.debezium.engine.DebeziumEngine;
import io.debezium.engine.RecordChangeEvent;
import io.debezium.engine.format.ChangeEventFormat;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.connect.source.SourceRecord;

import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import static dev.outbox.it.support.Eventually.await;

/**
 * B2's and B3's change-data-capture peer (issue 20 item 4): Debezium's embedded engine with its PostgreSQL
 * connector, reading the WAL through {@code pgoutput} (the database's own logical decoding plugin; the test cluster
 * runs with {@code wal_level=logical}), and its outbox event router, capturing a table of the outbox's shape
 * ({@value #TABLE}, made {@code LIKE outbox_event INCLUDING ALL}, so an insert costs what ours costs) into the same
 * broker with the Kafka transport's producer settings.
 *
 * <p>The engine hands batches to {@link #handleBatch}, which does what Debezium Server's Kafka sink does: sends
 * the batch, waits for every acknowledgement, then marks the records processed, so an offset moves only past
 * what the broker has; records go as the router leaves them (key and payload as strings), without the JSON
 * converter Debezium Server would run, which favours the peer. Settings: what the outbox route needs (no snapshot,
 * a publication of the one table, the router's fields), offsets flushed every second, and one change for
 * latency: {@code poll.interval.ms} 5 ms instead of 500 (its queue waits that long to fill a batch, and the WAL
 * reader sleeps that long when nothing came), as a user who wants latency sets it; our producer lingers 5 ms too. The connector logs in as the cluster's superuser, which owns the replication slot
 * and the publication; {@link #close} drops both, so no slot holds WAL after the run.
 */
final class DebeziumPeer implements AutoCloseable {

    static final String NAME = "Debezium embedded 3.6.1 (PostgreSQL connector, pgoutput, outbox event router)";
    static final String TABLE = "debezium_outbox";
    private static final String SLOT = "debezium_bench";
    private static final String TOPICS = "debezium.";

    private final URI server;
    private final Properties producerSettings;
    private final OutboxDatabase db;
    private final String schema;
    private final Path offsets;
    private final KafkaProducer<String, String> producer;
    private final ExecutorService runner = Executors.newSingleThreadExecutor(r -> new Thread(r, "debezium-engine"));
    private final AtomicReference<Throwable> failure = new AtomicReference<>();
    private DebeziumEngine<RecordChangeEvent<SourceRecord>> engine;

    /**
     * Counting: records whose key starts with {@link #counting} that the broker acknowledged, and when the first
     * and the last batch holding some were acknowledged (ours is timed from its first confirm to its last, too).
     */
    private volatile String counting = "";
    private final AtomicLong counted = new AtomicLong();
    private final AtomicLong firstAcked = new AtomicLong();
    private final AtomicLong lastAcked = new AtomicLong();

    private DebeziumPeer(String jdbc, Properties producerSettings, OutboxDatabase db) throws Exception {
        this.server = URI.create(jdbc.substring("jdbc:".length()));
        this.producerSettings = producerSettings;
        this.db = db;
        this.schema = String.valueOf(db.rows("SELECT current_schema()").get(0).get(0));
        this.offsets = Files.createTempDirectory("debezium-offsets").resolve("offsets.dat"); // none yet: a new engine
        this.producer = new KafkaProducer<>(producerSettings);
    }

    /** A fresh captured table and slot, and an engine that streams: a probe row inserted after start reached Kafka. */
    static DebeziumPeer start(String jdbc, Properties producerSettings, OutboxDatabase db) throws Exception {
        DebeziumPeer peer = new DebeziumPeer(jdbc, producerSettings, db);
        try {
            peer.dropCapture();
            db.execute("CREATE TABLE " + TABLE + " (LIKE outbox_event INCLUDING ALL)");
            peer.startEngine();
            peer.awaitStreaming();
            return peer;
        } catch (Exception | Error e) {
            try {
                peer.close();
            } catch (Exception | Error cleanup) {
                e.addSuppressed(cleanup);
            }
            throw e;
        }
    }

    /** B2's figures for the peer: its rate, and where the machine's CPU went from its first batch to its last. */
    record Drained(double rate, CpuMeter.Usage cpu) {
    }

    /**
     * B2: a backlog of {@code events} rows (as ours: 1000 aggregates, a 170-byte payload) committed while the engine
     * is stopped, in transactions of 1000 rows as the gruelbox peer records them, then the engine started again
     * from its offsets; events a second from the first acknowledged batch to the last, the rule our drain's rate
     * follows (first to last confirm).
     */
    Drained drain(int events) throws Exception {
        stopEngine();
        String tag = "debezium-" + java.util.UUID.randomUUID();
        for (int from = 0; from < events; from += 1000) {
            db.execute(BenchDatabase.POSTGRESQL.insertPending(TABLE, tag, from, Math.min(events, from + 1000), events));
        }
        count(tag + "-");
        List<CpuMeter.Sample> cpu = new java.util.concurrent.CopyOnWriteArrayList<>();
        cpu.add(CpuMeter.sample());
        startEngine();
        await(Duration.ofSeconds(Math.max(120, events / 200)), "Debezium delivered the " + events + " backlog rows",
                () -> {
                    failed();
                    // The engine runs in this JVM: read /proc twice a second as for our drains, not at every check.
                    if (System.nanoTime() - cpu.get(cpu.size() - 1).nanos() >= 500_000_000L) {
                        cpu.add(CpuMeter.sample());
                    }
                    return counted.get();
                }, n -> n >= events);
        cpu.add(CpuMeter.sample());
        return new Drained(events / ((lastAcked.get() - firstAcked.get()) / 1e9),
                CpuMeter.withinNanos(cpu, firstAcked.get(), lastAcked.get()));
    }

    /** B3's figures for the peer: commit-to-consumer latency percentiles and what the load achieved. */
    record Latency(double p50, double p99, long events, double seconds) {
    }

    /**
     * B3: single-row transactions at {@code perSecond} for a warm-up and then {@code millis}, each row's
     * {@code created_at} (its transaction's start, on the database clock) carried as a header by the event router;
     * latency is from it to a plain consumer's poll in this JVM (same machine, same clock), over the measured rows.
     */
    Latency latency(int perSecond, long warmUpMillis, long millis) throws Exception {
        String topic = TOPICS + "Steady";
        String run = "steady-" + java.util.UUID.randomUUID().toString().substring(0, 8);
        Properties consumerSettings = new Properties();
        consumerSettings.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, producerSettings.get("bootstrap.servers"));
        consumerSettings.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        consumerSettings.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        List<Double> measured = Collections.synchronizedList(new ArrayList<>());
        java.util.concurrent.atomic.AtomicBoolean reading = new java.util.concurrent.atomic.AtomicBoolean(true);
        insertSteady(run + "-first", 1, 0); // the topic exists before the consumer looks for its partitions
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(consumerSettings)) {
            List<TopicPartition> partitions = consumer.partitionsFor(topic, Duration.ofSeconds(30)).stream()
                    .map(p -> new TopicPartition(topic, p.partition())).toList();
            consumer.assign(partitions);
            consumer.seekToEnd(partitions);
            partitions.forEach(consumer::position); // resolves the end now, before any measured row is written
            Thread reader = new Thread(() -> {
                while (reading.get()) {
                    for (ConsumerRecord<String, String> record : consumer.poll(Duration.ofMillis(100))) {
                        Instant received = Instant.now();
                        if (record.key() != null && record.key().startsWith(run + "-measured")) {
                            Header created = record.headers().lastHeader("createdAt");
                            Instant at = Instant.parse(new String(created.value(), StandardCharsets.UTF_8));
                            measured.add(Duration.between(at, received).toNanos() / 1e6);
                        }
                    }
                }
            }, "debezium-latency-reader");
            reader.start();
            try {
                insertSteady(run + "-warm", perSecond, warmUpMillis);
                long begin = System.nanoTime();
                int rows = insertSteady(run + "-measured", perSecond, millis);
                double seconds = (System.nanoTime() - begin) / 1e9;
                await(Duration.ofMinutes(2), "the consumer received the " + rows + " measured rows", () -> {
                    failed();
                    return measured.size();
                }, n -> n >= rows);
                List<Double> sorted = new ArrayList<>(measured);
                Collections.sort(sorted);
                return new Latency(percentile(sorted, 0.5), percentile(sorted, 0.99), rows, seconds);
            } finally {
                reading.set(false); // the reader's poll returns within 100 ms
                reader.join(10_000);
            }
        }
    }

    /** Inserts single-row transactions at {@code perSecond} for {@code millis} (at least one row); returns how many. */
    private int insertSteady(String keyPrefix, int perSecond, long millis) throws SQLException {
        String sql = "INSERT INTO " + TABLE + " (event_id, aggregate_type, aggregate_id, aggregate_version, event_type,"
                + " schema_version, payload, created_at, state, attempts, next_attempt_at, lease_version)"
                + " VALUES (gen_random_uuid(), 'Steady', ?, ?, 'SteadyNoted', 1, ?, now(), 'PENDING', 0, now(), 0)";
        String pad = "x".repeat(150);
        try (Connection connection = DriverManager.getConnection("jdbc:" + server, "outbox", "outbox");
             PreparedStatement insert = connection.prepareStatement(sql)) {
            // Logical decoding reads only WAL that is flushed. The test cluster's synchronous_commit=off leaves a
            // commit's WAL to the WAL writer (every 200 ms), which would put up to 200 ms into every latency;
            // production commits flush it, and so do these (with fsync off the flush is only a write).
            try (Statement session = connection.createStatement()) {
                session.execute("SET synchronous_commit = on");
            }
            long start = System.nanoTime();
            int rows = 0;
            do {
                long due = start + (long) (rows * 1e9 / perSecond);
                long wait = due - System.nanoTime();
                if (wait > 0) {
                    pause(TimeUnit.NANOSECONDS.toMillis(wait));
                }
                insert.setString(1, keyPrefix + "-" + (rows % 100));
                insert.setLong(2, rows / 100 + 1);
                insert.setString(3, "{\"n\":" + rows + ",\"pad\":\"" + pad + "\"}");
                insert.executeUpdate();
                rows++;
            } while (System.nanoTime() - start < TimeUnit.MILLISECONDS.toNanos(millis));
            return rows;
        }
    }

    /**
     * Debezium Server's Kafka sink, in short: every record of the batch sent, every acknowledgement awaited, then
     * the batch marked processed; a refused send stops the engine (its offsets stay before the batch).
     */
    private void handleBatch(List<RecordChangeEvent<SourceRecord>> batch,
                             DebeziumEngine.RecordCommitter<RecordChangeEvent<SourceRecord>> committer)
            throws InterruptedException {
        String prefix = counting;
        int mine = 0;
        List<Future<RecordMetadata>> acks = new ArrayList<>(batch.size());
        for (RecordChangeEvent<SourceRecord> change : batch) {
            SourceRecord record = change.record();
            String key = record.key() == null ? null : record.key().toString();
            ProducerRecord<String, String> out = new ProducerRecord<>(record.topic(), key,
                    record.value() == null ? null : record.value().toString());
            record.headers().forEach(h -> out.headers().add(h.key(),
                    String.valueOf(h.value()).getBytes(StandardCharsets.UTF_8)));
            if (!prefix.isEmpty() && key != null && key.startsWith(prefix)) {
                mine++;
            }
            acks.add(producer.send(out));
        }
        try {
            for (Future<RecordMetadata> ack : acks) {
                ack.get();
            }
        } catch (ExecutionException e) {
            throw new IllegalStateException("Kafka refused a record Debezium captured", e.getCause());
        }
        for (RecordChangeEvent<SourceRecord> change : batch) {
            committer.markProcessed(change);
        }
        committer.markBatchFinished();
        if (mine > 0) {
            long now = System.nanoTime();
            firstAcked.compareAndSet(0, now);
            counted.addAndGet(mine);
            lastAcked.set(now);
        }
    }

    private void count(String prefix) {
        counted.set(0);
        firstAcked.set(0);
        lastAcked.set(0);
        counting = prefix;
    }

    private Properties engineSettings() {
        Properties p = new Properties();
        p.setProperty("name", "debezium-bench");
        p.setProperty("connector.class", "io.debezium.connector.postgresql.PostgresConnector");
        p.setProperty("offset.storage", "org.apache.kafka.connect.storage.FileOffsetBackingStore");
        p.setProperty("offset.storage.file.filename", offsets.toString());
        p.setProperty("offset.flush.interval.ms", "1000");
        p.setProperty("database.hostname", server.getHost());
        p.setProperty("database.port", String.valueOf(server.getPort()));
        p.setProperty("database.user", "postgres");
        p.setProperty("database.password", "postgres");
        p.setProperty("database.dbname", server.getPath().substring(1));
        p.setProperty("topic.prefix", "debezium-bench");
        p.setProperty("plugin.name", "pgoutput");
        p.setProperty("slot.name", SLOT);
        p.setProperty("publication.name", SLOT);
        p.setProperty("publication.autocreate.mode", "filtered");
        p.setProperty("table.include.list", schema + "." + TABLE);
        p.setProperty("snapshot.mode", "no_data"); // the outbox pattern captures inserts from now on
        p.setProperty("poll.interval.ms", "5");
        p.setProperty("transforms", "outbox");
        p.setProperty("transforms.outbox.type", "io.debezium.transforms.outbox.EventRouter");
        p.setProperty("transforms.outbox.table.field.event.id", "event_id");
        p.setProperty("transforms.outbox.table.field.event.key", "aggregate_id");
        p.setProperty("transforms.outbox.table.field.event.payload", "payload");
        p.setProperty("transforms.outbox.route.by.field", "aggregate_type");
        p.setProperty("transforms.outbox.route.topic.replacement", TOPICS + "${routedByValue}");
        p.setProperty("transforms.outbox.table.fields.additional.placement",
                "event_type:header:eventType,created_at:header:createdAt");
        return p;
    }

    private void startEngine() {
        failure.set(null);
        engine = DebeziumEngine.create(ChangeEventFormat.of(Connect.class))
                .using(engineSettings())
                .notifying(this::handleBatch)
                .using((success, message, error) -> {
                    if (!success) {
                        failure.compareAndSet(null, error != null ? error : new IllegalStateException(message));
                    }
                })
                .build();
        runner.execute(engine);
    }

    private void stopEngine() throws Exception {
        if (engine != null) {
            engine.close(); // commits the offsets of what was marked processed
            engine = null;
        }
    }

    /** The slot exists only once the engine has started: rows are captured from the first one that reaches Kafka. */
    private void awaitStreaming() throws SQLException {
        String probe = "probe-" + java.util.UUID.randomUUID().toString().substring(0, 8);
        count(probe);
        AtomicLong probes = new AtomicLong();
        await(Duration.ofMinutes(2), "Debezium streams the captured table", () -> {
            failed();
            try {
                insertSteady(probe + "-" + probes.incrementAndGet(), 1, 0);
            } catch (SQLException e) {
                throw new IllegalStateException(e);
            }
            pause(500);
            return counted.get();
        }, n -> n > 0);
        count("");
    }

    private void failed() {
        Throwable error = failure.get();
        if (error != null) {
            throw new IllegalStateException("the Debezium engine stopped: " + error, error);
        }
    }

    /** The slot (which would hold WAL for ever), the publication and the captured table of this or an earlier run. */
    private void dropCapture() throws SQLException {
        try (Connection admin = DriverManager.getConnection("jdbc:" + server, "postgres", "postgres");
             Statement sql = admin.createStatement()) {
            // A stopped engine's WAL sender may still hold the slot for a moment; PostgreSQL refuses to drop an
            // active slot, so end that sender and wait until the slot is free.
            String active = "SELECT active_pid FROM pg_replication_slots WHERE slot_name = '" + SLOT
                    + "' AND active_pid IS NOT NULL";
            await(Duration.ofSeconds(30), "replication slot " + SLOT + " released", () -> {
                try {
                    sql.execute("SELECT pg_terminate_backend(active_pid) FROM (" + active + ") s");
                    try (var rs = sql.executeQuery(active)) {
                        return rs.next();
                    }
                } catch (SQLException e) {
                    throw new IllegalStateException(e);
                }
            }, held -> !held);
            sql.execute("SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots WHERE slot_name = '"
                    + SLOT + "'");
            sql.execute("DROP PUBLICATION IF EXISTS " + SLOT);
        }
        db.execute("DROP TABLE IF EXISTS " + TABLE);
    }

    @Override
    public void close() throws Exception {
        try {
            try {
                stopEngine();
            } finally {
                try {
                    runner.shutdown();
                    runner.awaitTermination(30, TimeUnit.SECONDS);
                } finally {
                    producer.close(Duration.ofSeconds(10));
                }
            }
        } finally {
            try {
                dropCapture();
            } finally {
                try (var files = Files.list(offsets.getParent())) {
                    for (Path file : files.toList()) {
                        Files.deleteIfExists(file);
                    }
                }
                Files.deleteIfExists(offsets.getParent());
            }
        }
    }

    private static double percentile(List<Double> sorted, double p) {
        if (sorted.isEmpty()) {
            return Double.NaN;
        }
        int rank = (int) Math.ceil(p * sorted.size());
        return sorted.get(Math.max(0, Math.min(sorted.size() - 1, rank - 1)));
    }

    private static void pause(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
