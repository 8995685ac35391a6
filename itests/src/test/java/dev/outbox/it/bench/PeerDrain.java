package dev.outbox.it.bench;

import com.gruelbox.transactionoutbox.Dialect;
import com.gruelbox.transactionoutbox.Instantiator;
import com.gruelbox.transactionoutbox.Persistor;
import com.gruelbox.transactionoutbox.Submitter;
import com.gruelbox.transactionoutbox.ThreadLocalContextTransactionManager;
import com.gruelbox.transactionoutbox.TransactionManager;
import com.gruelbox.transactionoutbox.TransactionOutbox;
import dev.outbox.it.support.OutboxDatabase;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;

import java.time.Duration;
import java.util.Properties;

import static dev.outbox.it.support.Eventually.await;

/**
 * B2's peer (issue 8): gruelbox transaction-outbox 4.2.268, as its README sets it up for PostgreSQL (its own
 * TXNO_OUTBOX table, {@code flush()} in a loop on a background thread, the default submitter and batch size),
 * draining a backlog of the same events into the same Kafka broker with the same producer settings as our
 * transport. Each entry is a recorded call of {@link PeerMessages#send}, which waits for the broker's ack,
 * since the peer counts an entry as done when the call returns.
 */
final class PeerDrain {

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
        ThreadLocalContextTransactionManager transactions = TransactionManager.fromConnectionDetails(
                "org.postgresql.Driver", jdbc, "outbox", "outbox");
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(producerSettings)) {
            Instantiator sender = Instantiator.using(type -> new KafkaSender(producer));
            // Recording: nothing is sent after each commit, so the whole backlog waits, due at once.
            TransactionOutbox recorder = TransactionOutbox.builder().transactionManager(transactions)
                    .persistor(Persistor.forDialect(Dialect.POSTGRESQL_9)).instantiator(sender)
                    .submitter((entry, process) -> { }).attemptFrequency(Duration.ofMillis(1)).build();
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
            Thread.sleep(50);
            // Draining: the README's set-up, defaults otherwise.
            TransactionOutbox outbox = TransactionOutbox.builder().transactionManager(transactions)
                    .persistor(Persistor.forDialect(Dialect.POSTGRESQL_9)).instantiator(sender)
                    .submitter(Submitter.withDefaultExecutor()).build();
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
