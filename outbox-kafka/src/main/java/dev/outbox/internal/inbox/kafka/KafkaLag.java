package dev.outbox.internal.inbox.kafka;

import dev.outbox.internal.inbox.watch.ConsumerSource;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ListOffsetsResult;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * A Kafka consumer group's lag on one topic, as a {@link ConsumerSource}: the records between the group's committed
 * offsets and the ends of the topic's partitions (a partition without a committed offset counts from its start, as
 * {@code auto.offset.reset=earliest} reads it). It reads through one admin client per cluster, opened on first use,
 * and gives up after {@link #TIMEOUT_MS}: a broker that does not answer is "cannot say", never a stall.
 */
@ApplicationScoped
public class KafkaLag {

    private static final Logger LOG = Logger.getLogger(KafkaLag.class.getName());
    static final long TIMEOUT_MS = 3_000;

    private final Map<String, Admin> admins = new ConcurrentHashMap<>();

    /** {@code clientProperties}: the security settings the consumers use; those an admin client does not know are left out. */
    public ConsumerSource of(String bootstrapServers, Map<String, ?> clientProperties, String group, String topic) {
        return new Lag(bootstrapServers, clientProperties, group, topic);
    }

    @PreDestroy
    void close() {
        admins.values().forEach(admin -> admin.close(java.time.Duration.ofSeconds(2)));
        admins.clear();
    }

    private Admin admin(String bootstrapServers, Map<String, ?> clientProperties) {
        return admins.computeIfAbsent(bootstrapServers, servers -> {
            Map<String, Object> properties = new HashMap<>();
            clientProperties.forEach((name, value) -> {
                if (AdminClientConfig.configNames().contains(name)) {
                    properties.put(name, value);
                }
            });
            properties.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, servers);
            properties.put(AdminClientConfig.CLIENT_ID_CONFIG, "outbox-consumer-watch");
            properties.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, (int) TIMEOUT_MS);
            properties.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, (int) TIMEOUT_MS);
            return Admin.create(properties);
        });
    }

    private final class Lag implements ConsumerSource {
        private final String bootstrapServers;
        private final Map<String, ?> clientProperties;
        private final String group;
        private final String topic;

        Lag(String bootstrapServers, Map<String, ?> clientProperties, String group, String topic) {
            this.bootstrapServers = bootstrapServers;
            this.clientProperties = Map.copyOf(clientProperties);
            this.group = group;
            this.topic = topic;
        }

        @Override
        public OptionalLong waiting() {
            long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(TIMEOUT_MS);
            try {
                Admin admin = admin(bootstrapServers, clientProperties);
                TopicDescription description = admin.describeTopics(List.of(topic)).allTopicNames()
                        .get(left(deadline), TimeUnit.NANOSECONDS).get(topic);
                Map<TopicPartition, OffsetAndMetadata> committed = admin.listConsumerGroupOffsets(group)
                        .partitionsToOffsetAndMetadata().get(left(deadline), TimeUnit.NANOSECONDS);
                Map<TopicPartition, OffsetSpec> ends = new HashMap<>();
                Map<TopicPartition, OffsetSpec> starts = new HashMap<>();
                description.partitions().forEach(p -> {
                    TopicPartition partition = new TopicPartition(topic, p.partition());
                    ends.put(partition, OffsetSpec.latest());
                    if (committed.get(partition) == null) {
                        starts.put(partition, OffsetSpec.earliest());
                    }
                });
                Map<TopicPartition, ListOffsetsResult.ListOffsetsResultInfo> end = admin.listOffsets(ends).all()
                        .get(left(deadline), TimeUnit.NANOSECONDS);
                Map<TopicPartition, ListOffsetsResult.ListOffsetsResultInfo> start = starts.isEmpty() ? Map.of()
                        : admin.listOffsets(starts).all().get(left(deadline), TimeUnit.NANOSECONDS);
                long lag = 0;
                for (Map.Entry<TopicPartition, ListOffsetsResult.ListOffsetsResultInfo> e : end.entrySet()) {
                    OffsetAndMetadata done = committed.get(e.getKey());
                    long from = done != null ? done.offset() : start.get(e.getKey()).offset();
                    lag += Math.max(0, e.getValue().offset() - from);
                }
                return OptionalLong.of(lag);
            } catch (ExecutionException e) {
                if (e.getCause() instanceof UnknownTopicOrPartitionException) {
                    return OptionalLong.of(0); // nothing was ever published to it: nothing waits
                }
                return cannotSay(e.getCause());
            } catch (TimeoutException | RuntimeException e) {
                return cannotSay(e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return OptionalLong.empty();
            }
        }

        private OptionalLong cannotSay(Throwable why) {
            LOG.log(Level.FINE, "lag of group " + group + " on " + topic + " unknown now", why);
            return OptionalLong.empty();
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
