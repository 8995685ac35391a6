package dev.outbox.internal.inbox.kafka;

import dev.outbox.internal.inbox.watch.ConsumerSource;
import dev.outbox.internal.transport.kafka.AdminClientSettings;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ListOffsetsResult;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * A Kafka consumer group's lag on one topic, as a {@link ConsumerSource}: the records between the group's committed
 * offsets and the ends of the topic's partitions. A partition the group never committed on counts from its start
 * where the consumer reads from the start ({@code auto.offset.reset=earliest}), else as nothing waiting (with
 * {@code latest} the consumer would skip those records, and an idle group would look stalled forever). It reads
 * through one admin client per cluster and client settings, opened on first use, and gives up after
 * {@link #TIMEOUT_MS}: a broker that does not answer is "cannot say", never a stall.
 */
@ApplicationScoped
public class KafkaLag {

    private static final Logger LOG = Logger.getLogger(KafkaLag.class.getName());
    static final long TIMEOUT_MS = 3_000;

    private final Map<Map<String, Object>, Admin> admins = new ConcurrentHashMap<>();
    private volatile boolean closed;

    /**
     * @param clientProperties the consumer's own settings (security, {@code auto.offset.reset}); those an admin
     *                         client does not know are left out of its admin client
     */
    public ConsumerSource of(String bootstrapServers, Map<String, ?> clientProperties, String group, String topic) {
        Map<String, Object> admin = AdminClientSettings.of(clientProperties, bootstrapServers);
        boolean fromStart = "earliest".equals(String.valueOf(clientProperties.get(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG)));
        return new Lag(Map.copyOf(admin), fromStart, group, topic);
    }

    @PreDestroy
    synchronized void close() {
        closed = true;
        admins.values().forEach(admin -> admin.close(java.time.Duration.ofSeconds(2)));
        admins.clear();
    }

    private synchronized Admin admin(Map<String, Object> settings) {
        if (closed) {
            throw new IllegalStateException("the application is stopping");
        }
        return admins.computeIfAbsent(settings, given -> {
            Map<String, Object> properties = new HashMap<>(given);
            // One id per admin client: two clusters, or two applications in one JVM, must not share an MBean.
            properties.put(AdminClientConfig.CLIENT_ID_CONFIG, "outbox-consumer-watch-" + UUID.randomUUID());
            properties.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, (int) TIMEOUT_MS);
            properties.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, (int) TIMEOUT_MS);
            return Admin.create(properties);
        });
    }

    private final class Lag implements ConsumerSource {
        private final Map<String, Object> adminSettings;
        private final boolean fromStart;
        private final String group;
        private final String topic;

        Lag(Map<String, Object> adminSettings, boolean fromStart, String group, String topic) {
            this.adminSettings = adminSettings;
            this.fromStart = fromStart;
            this.group = group;
            this.topic = topic;
        }

        @Override
        public Optional<Reading> read() {
            long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(TIMEOUT_MS);
            try {
                Admin admin = admin(adminSettings);
                TopicDescription description = admin.describeTopics(List.of(topic)).allTopicNames()
                        .get(left(deadline), TimeUnit.NANOSECONDS).get(topic);
                Map<TopicPartition, OffsetAndMetadata> committed = admin.listConsumerGroupOffsets(group)
                        .partitionsToOffsetAndMetadata().get(left(deadline), TimeUnit.NANOSECONDS);
                Map<TopicPartition, OffsetSpec> ends = new HashMap<>();
                Map<TopicPartition, OffsetSpec> starts = new HashMap<>();
                description.partitions().forEach(p -> {
                    TopicPartition partition = new TopicPartition(topic, p.partition());
                    ends.put(partition, OffsetSpec.latest());
                    starts.put(partition, OffsetSpec.earliest());
                });
                Map<TopicPartition, ListOffsetsResult.ListOffsetsResultInfo> end = admin.listOffsets(ends).all()
                        .get(left(deadline), TimeUnit.NANOSECONDS);
                Map<TopicPartition, ListOffsetsResult.ListOffsetsResultInfo> start = admin.listOffsets(starts).all()
                        .get(left(deadline), TimeUnit.NANOSECONDS);
                long lag = 0;
                long finished = 0;
                for (Map.Entry<TopicPartition, ListOffsetsResult.ListOffsetsResultInfo> e : end.entrySet()) {
                    OffsetAndMetadata done = committed.get(e.getKey());
                    if (done == null && !fromStart) {
                        continue; // read from the end when it starts: nothing here waits for it
                    }
                    // A commit below the log's start (retention deleted what was never read) waits for nothing there.
                    long first = start.get(e.getKey()).offset();
                    long from = done == null ? first : Math.max(done.offset(), first);
                    lag += Math.max(0, e.getValue().offset() - from);
                    finished += done != null ? done.offset() : 0;
                }
                // The whole group's commits: records another instance finished count as progress (ConsumerProgress).
                return Optional.of(new Reading(lag, finished));
            } catch (ExecutionException e) {
                if (e.getCause() instanceof UnknownTopicOrPartitionException) {
                    return Optional.of(Reading.waitingOnly(0)); // nothing was ever published to it: nothing waits
                }
                return cannotSay(e.getCause());
            } catch (TimeoutException | RuntimeException e) {
                return cannotSay(e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return Optional.empty();
            }
        }

        private Optional<Reading> cannotSay(Throwable why) {
            LOG.log(Level.FINE, "lag of group " + group + " on " + topic + " unknown now", why);
            return Optional.empty();
        }

        private long left(long deadline) {
            return Math.max(1, deadline - System.nanoTime());
        }

        @Override
        public String describe() {
            return "topic " + topic + " as group " + group;
        }
    }
}
