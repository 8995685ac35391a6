package dev.outbox.it.bench;

import com.gruelbox.transactionoutbox.Dialect;
import com.gruelbox.transactionoutbox.Instantiator;
import com.gruelbox.transactionoutbox.Persistor;
import com.gruelbox.transactionoutbox.Submitter;
import com.gruelbox.transactionoutbox.ThreadLocalContextTransactionManager;
import com.gruelbox.transactionoutbox.TransactionManager;
import com.gruelbox.transactionoutbox.TransactionOutbox;
import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.outbox.it.support.OutboxDatabase;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;

import java.time.Duration;
import java.util.Properties;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

import static dev.outbox.it.support.Eventually.await;

/**
 * B2's peer (issue 8): gruelbox transaction-outbox 4.2.268, set up as its README recommends for PostgreSQL
 * (its own TXNO_OUTBOX table, a pooled DataSource, {@code flush()} in a loop on a background thread, the default
 * flush batch size and attempt frequency), draining a backlog of the same events into the same Kafka broker
 * with the same producer settings as our transport. Each entry is a recorded call of {@link PeerMessages#send},
 * which waits for the broker's ack, since the peer counts an entry as done when the call returns.
 *
 * <p>One departure, in the peer's favour: its default submitter runs entries on min(16, common pool
 * parallelism) threads, which is one thread on this 2-core machine, behind a queue of 16,384; the rest of a
 * 100,000 backlog is rejected and waits the attempt frequency (2 minutes) before a retry. Here it gets
 * {@link #THREADS} threads and an unbounded queue, and as many pooled connections.
 */
final class PeerDrain {

    static final int THREADS = 8;

    private final String jdbc;
    private final Properties producerSettings;
    private final OutboxDatabase db;

    PeerDrain(String jdbc, Properties producerSettings, OutboxDatabase db) {
        this.jdbc = jdbc;
        this.producerSettings = producerSettings;
        this.db = db;
    }

    /** The sender the peer instantiates: a blocking send, so a returned call means the broker has the record. */
    record KafkaSender(KafkaProducer<String, String> producer) implements PeerMessages {
        @Override
        public void send(String topic, String key, String payload) {
            try {
                producer.send(new ProducerRecord<>(topic, key, payload)).get();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while Kafka acknowledged", e);
            } catch (java.util.concurrent.ExecutionException e) {
                // The peer retries an entry whose call threw.
                throw new IllegalStateException("Kafka refused the record", e.getCause());
            }
        }
    }

    /** Records {@code events} calls (1000 aggregates, a 170-byte payload), then drains them; events a second. */
    double drain(int events) throws Exception {
        HikariConfig pool = new HikariConfig();
        pool.setJdbcUrl(jdbc);
        pool.setUsername("outbox");
        pool.setPassword("outbox");
        pool.setMaximumPoolSize(THREADS + 2);
        ExecutorService workers = Executors.newFixedThreadPool(THREADS);
        try (HikariDataSource dataSource = new HikariDataSource(pool);
             KafkaProducer<String, String> producer = new KafkaProducer<>(producerSettings)) {
            ThreadLocalContextTransactionManager transactions = TransactionManager.fromDataSource(dataSource);
            Instantiator sender = Instantiator.using(type -> new KafkaSender(producer));
            // Recording: nothing is sent after each commit, so the whole backlog waits, due a second later.
            TransactionOutbox recorder = TransactionOutbox.builder().transactionManager(transactions)
                    .persistor(Persistor.forDialect(Dialect.POSTGRESQL_9)).instantiator(sender)
                    .submitter((entry, process) -> { }).attemptFrequency(Duration.ofSeconds(1)).build();
            db.execute("DELETE FROM txno_outbox");
            String payload = "{\"n\":1,\"pad\":\"" + "x".repeat(150) + "\"}";
            for (int start = 0; start < events; start += 1000) {
                int from = start;
                transactions.inTransaction(() -> {
                    for (int i = from; i < Math.min(events, from + 1000); i++) {
                        recorder.schedule(PeerMessages.class).send("peer.Bench", "bench-" + (i % 1000), payload);
                    }
                });
            }
            Thread.sleep(1_100); // every entry is due (the peer refuses a first attempt time that is not ahead)
            // Draining: the README's set-up, defaults otherwise.
            TransactionOutbox outbox = TransactionOutbox.builder().transactionManager(transactions)
                    .persistor(Persistor.forDialect(Dialect.POSTGRESQL_9)).instantiator(sender)
                    .submitter(Submitter.withExecutor(workers)).build();
            long begin = System.nanoTime();
            Thread flusher = new Thread(() -> {
                while (!Thread.currentThread().isInterrupted()) {
                    try {
                        if (!outbox.flush()) {
                            Thread.sleep(100);
                        }
                    } catch (InterruptedException e) {
                        return;
                    } catch (RuntimeException e) {
                        // As the peer's README: log and go on; the await below fails if it never drains.
                    }
                }
            }, "peer-flush");
            flusher.start();
            try {
                await(Duration.ofSeconds(Math.max(120, events / 100)), "the peer drained " + events + " entries", () -> {
                    pause();
                    return db.count("txno_outbox", "processed = false OR processed IS NULL");
                }, n -> n == 0);
            } finally {
                flusher.interrupt();
                flusher.join(10_000);
            }
            return events / ((System.nanoTime() - begin) / 1e9);
        } finally {
            workers.shutdownNow();
        }
    }

    private static void pause() {
        try {
            Thread.sleep(200);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
