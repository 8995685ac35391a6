package dev.outbox.kafka;

import dev.outbox.InboxedEvent;
import dev.outbox.internal.config.Settings;
import dev.outbox.internal.inbox.InboxAttempt;
import dev.outbox.internal.inbox.Received;
import dev.outbox.internal.inbox.kafka.DeadLetters;
import dev.outbox.internal.inbox.kafka.InboxDelivery;
import dev.outbox.internal.inbox.kafka.KafkaLag;
import dev.outbox.internal.inbox.kafka.RecordHeaders;
import dev.outbox.internal.inbox.watch.ConsumerWatch;
import dev.outbox.internal.transport.kafka.KafkaMessages;
import dev.outbox.internal.transport.kafka.KafkaSettings;
import jakarta.annotation.PostConstruct;
import jakarta.annotation.PreDestroy;
import jakarta.annotation.Resource;
import jakarta.enterprise.concurrent.ManagedThreadFactory;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.eclipse.microprofile.config.Config;
import org.eclipse.microprofile.config.ConfigProvider;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.logging.Logger;

/**
 * A Kafka consumer behind the inbox that owns its poll loop, for consumers that must survive broker outages:
 * one thread per subscription (from the platform's managed thread factory, so transactions and CDI work),
 * the records of a poll through the inbox in batches of one transaction each ({@code outbox.inbox.batch-size}),
 * a batch that fails again record by record through {@link InboxDelivery}, offsets committed only past records
 * that are done with (R5.5): asynchronously after each poll ({@link PollOffsets}), synchronously before partitions
 * go to another member or the consumer closes. A broker error that reaches the poll loop (broker down, consumer
 * fenced) closes the consumer and opens a new one, which re-reads from the last committed offset: the inbox absorbs
 * what it re-reads.
 *
 * <pre>{@code
 * void start(@Observes Startup startup) {
 *     kafkaInbox.subscribe("invoicing", "invoicing", "outbox.Order", invoicing::apply);
 * }
 * }</pre>
 *
 * <p>The broker is {@code outbox.kafka.bootstrap-servers}; {@code outbox.kafka.consumer.<property>} variables pass
 * through to the consumer (security settings, max.poll.records). Prefer it to Reactive Messaging on Open Liberty:
 * Liberty 26.0.0.3's {@code liberty-kafka} connector stops a channel for good when the broker goes away.
 */
@ApplicationScoped
public class KafkaInbox {

    private static final Logger LOG = Logger.getLogger(KafkaInbox.class.getName());

    @Resource(lookup = "java:comp/DefaultManagedThreadFactory")
    ManagedThreadFactory threads;

    @Inject
    InboxDelivery delivery;

    @Inject
    DeadLetters deadLetters;

    @Inject
    ConsumerWatch watch;

    @Inject
    KafkaLag lag;

    @Inject
    InboxAttempt attempt;

    private final List<Subscription> subscriptions = new CopyOnWriteArrayList<>();
    private String bootstrapServers;
    private Map<String, Object> passThrough;
    private int batchSize;

    @PostConstruct
    void configure() {
        Config config = ConfigProvider.getConfig();
        Function<String, Optional<String>> source = name -> config.getOptionalValue(name, String.class);
        // All Kafka settings are checked here, so a bad one stops the start even where nothing publishes to Kafka.
        bootstrapServers = KafkaSettings.read(source, config.getPropertyNames()).bootstrapServers();
        passThrough = new HashMap<>(Settings.KAFKA_CONSUMER.properties(source, config.getPropertyNames()));
        batchSize = Settings.INBOX_BATCH_SIZE.integer(source);
    }

    @PreDestroy
    void stopAll() {
        subscriptions.forEach(Subscription::stop);
    }

    /**
     * Starts consuming {@code topic} as group {@code groupId}; {@code consumer} names the inbox's consumer
     * ({@code processed_event.consumer}). Runs until the application stops.
     */
    public void subscribe(String consumer, String groupId, String topic, Consumer<InboxedEvent> change) {
        // R5.7: an event that waited is applied with the change of its consumer's name: one name, one change.
        if (subscriptions.stream().anyMatch(s -> s.consumer.equals(consumer))) {
            throw new IllegalArgumentException("consumer " + consumer + " is subscribed already: each subscription"
                    + " needs a consumer name of its own (processed_event.consumer)");
        }
        Subscription subscription = new Subscription(consumer, groupId, topic, change);
        subscriptions.add(subscription);
        // R6.1: a loop that stops reading while records wait turns liveness DOWN, naming it.
        watch.watch(consumer, lag.of(bootstrapServers, consumerProperties(groupId), groupId, topic));
        Thread thread = threads.newThread(subscription);
        thread.setName("outbox-inbox-" + consumer);
        thread.start();
        KafkaMessages.CONSUMER_READS.log(LOG,
                () -> "consumer " + consumer + " reads " + topic + " from " + bootstrapServers + " as group " + groupId);
    }

    private Map<String, Object> consumerProperties(String groupId) {
        Map<String, Object> properties = new HashMap<>(passThrough);
        properties.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        properties.put(ConsumerConfig.GROUP_ID_CONFIG, groupId);
        // R5.5: offsets move only when this class commits them, after the inbox transactions committed.
        properties.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        properties.putIfAbsent(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        properties.putIfAbsent(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, "200");
        properties.putIfAbsent(ConsumerConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, "10000");
        return properties;
    }

    /** One subscription's poll loop. */
    private final class Subscription implements Runnable {

        private final String consumer;
        private final String groupId;
        private final String topic;
        private final Consumer<InboxedEvent> change;
        private volatile boolean running = true;
        private volatile KafkaConsumer<String, String> current;

        Subscription(String consumer, String groupId, String topic, Consumer<InboxedEvent> change) {
            this.consumer = consumer;
            this.groupId = groupId;
            this.topic = topic;
            this.change = change;
        }

        void stop() {
            running = false;
            KafkaConsumer<String, String> open = current;
            if (open != null) {
                open.wakeup();
            }
        }

        @Override
        public void run() {
            while (running) {
                try (KafkaConsumer<String, String> kafka = new KafkaConsumer<>(consumerProperties(groupId),
                        new StringDeserializer(), new StringDeserializer())) {
                    current = kafka;
                    PollOffsets offsets = new PollOffsets(consumer, kafka);
                    // close() hands the partitions back through the listener, which commits what is done
                    kafka.subscribe(List.of(topic), offsets);
                    pollUntilStopped(kafka, offsets);
                } catch (WakeupException | org.apache.kafka.common.errors.InterruptException e) {
                    // stop() woke the consumer, or the platform interrupts its threads as the application stops
                    running = false;
                } catch (KafkaException e) {
                    if (running) {
                        // Uncommitted records come again from a new consumer; the inbox absorbs them (R5.5).
                        KafkaMessages.CONSUMER_LOST.log(LOG,
                                () -> "consumer " + consumer + " lost its Kafka consumer on " + topic + " ("
                                + e.getClass().getName() + "); reconnecting from the last committed offset");
                        pauseOrStop();
                    }
                } catch (RuntimeException | LinkageError | AssertionError e) {
                    // R5.5: a poll thread never dies of what one record's change threw (those park alone, in
                    // InboxDelivery); whatever else reached here, the loop reconnects from the committed offset.
                    if (Thread.currentThread().isInterrupted()) {
                        running = false;
                    } else if (running) {
                        KafkaMessages.CONSUMER_STOPPED.log(LOG,
                                () -> "consumer " + consumer + " stopped reading " + topic + " on "
                                + e.getClass().getName() + "; restarting from the last committed offset");
                        pauseOrStop();
                    }
                } finally {
                    current = null;
                }
            }
        }

        private void pollUntilStopped(KafkaConsumer<String, String> kafka, PollOffsets offsets) {
            while (running) {
                ConsumerRecords<String, String> records = kafka.poll(Duration.ofMillis(500));
                if (records.isEmpty()) {
                    offsets.quiet(); // a commit refused or unanswered before goes again while the topic is quiet
                    // R5.7: events an operator's skip released go on while the topic is quiet too
                    attempt.releaseDue(consumer, turn -> change.accept(turn.event()));
                    continue;
                }
                List<ConsumerRecord<String, String>> polled = new ArrayList<>(records.count());
                records.forEach(polled::add);
                for (int from = 0; from < polled.size(); from += batchSize) {
                    List<ConsumerRecord<String, String>> batch =
                            polled.subList(from, Math.min(polled.size(), from + batchSize));
                    if (!together(batch)) {
                        batch.forEach(this::handle);
                    }
                    watch.progressed(consumer);
                    batch.forEach(offsets::done);
                }
                // R5.5: offsets move only past records whose inbox transactions committed (or were parked)
                offsets.commitDone();
            }
        }

        /** Waits a second before reconnecting; an interrupt means the application is stopping. */
        private void pauseOrStop() {
            try {
                Thread.sleep(1_000);
            } catch (InterruptedException e) {
                running = false;
            }
        }

        /**
         * The records of one batch in one inbox transaction ({@code outbox.inbox.batch-size}); false when that is
         * not possible (a record that is no outbox event) or the batch rolled back, and nothing of it committed:
         * then each record goes on its own, through {@link #handle}.
         */
        private boolean together(List<ConsumerRecord<String, String>> batch) {
            if (batch.size() < 2) {
                return false;
            }
            List<InboxAttempt.Delivery> deliveries = new ArrayList<>(batch.size());
            for (ConsumerRecord<String, String> record : batch) {
                Received received = RecordHeaders.of(record).received(record.value()).orElse(null);
                if (received == null) {
                    return false;
                }
                deliveries.add(new InboxAttempt.Delivery(received, turn -> change.accept(turn.event())));
            }
            return attempt.attemptTogether(consumer, deliveries).isPresent();
        }

        private void handle(ConsumerRecord<String, String> record) {
            RecordHeaders headers = RecordHeaders.of(record);
            Received received = headers.received(record.value()).orElse(null);
            if (received == null) {
                // Not an outbox record: it cannot be deduplicated. Park it rather than loop on it (or drop it).
                deadLetters.park(consumer, record.topic(), record.key(), record.value(), record.headers(),
                        "NotAnOutboxRecord", headers.position(), "a record without a valid outbox event id");
                return;
            }
            delivery.deliver(consumer, received, change, failure -> deadLetters.park(consumer,
                    record.topic(), record.key(), record.value(), record.headers(), failure, headers.position(),
                    received.event().describe()));
        }
    }
}
