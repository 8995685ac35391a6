package dev.outbox.internal.transport.kafka;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.config.ConfigResource;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Tells the operator when a topic the outbox sends to cannot keep what {@code acks=all} promises (R4.7): an ack
 * means "on every in-sync replica", so with one replica, or with {@code min.insync.replicas=1}, an acknowledged
 * record dies with the broker that led its partition, and the row already says DELIVERED. A topic is checked once,
 * after its first acknowledged send (the topic exists by then, and topic names come from templates, so they are
 * not known at start), through the admin API, asynchronously: the check never delays a send. Where the cluster
 * does not let the outbox read the topic's description or settings, it says so once and why.
 */
final class TopicDurability implements AutoCloseable {

    private static final Logger LOG = Logger.getLogger(TopicDurability.class.getName());
    /** What docs/settings.md asks of a production topic: one broker may die and acked records stay acked. */
    static final int REPLICAS = 3;
    static final int MIN_IN_SYNC = 2;
    private static final Duration CHECK_TIMEOUT = Duration.ofSeconds(15);

    private final Map<String, Object> adminProperties;
    private final Set<String> checked = ConcurrentHashMap.newKeySet();
    private volatile Admin admin;
    private volatile boolean closed;

    TopicDurability(KafkaSettings settings) {
        Map<String, Object> properties = new HashMap<>();
        // The producer's security settings (SASL, TLS) are the admin client's too; the rest does not concern it.
        settings.passThrough().forEach((name, value) -> {
            if (AdminClientConfig.configNames().contains(name)) {
                properties.put(name, value);
            }
        });
        properties.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, settings.bootstrapServers());
        properties.put(AdminClientConfig.CLIENT_ID_CONFIG, settings.clientId() + "-durability-check");
        properties.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, (int) CHECK_TIMEOUT.toMillis());
        properties.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, (int) CHECK_TIMEOUT.toMillis() / 2);
        this.adminProperties = Map.copyOf(properties);
    }

    /** Starts the check of {@code topic} unless it ran already; returns at once. */
    void checkOnce(String topic) {
        if (closed || !checked.add(topic)) {
            return;
        }
        try {
            Admin client = admin();
            KafkaFuture<TopicDescription> description = client.describeTopics(List.of(topic)).topicNameValues()
                    .get(topic);
            ConfigResource resource = new ConfigResource(ConfigResource.Type.TOPIC, topic);
            KafkaFuture<Map<ConfigResource, Config>> settings = client.describeConfigs(List.of(resource)).all();
            KafkaFuture.allOf(description, settings).whenComplete((done, failure) -> {
                if (failure != null) {
                    cannotKnow(topic, failure);
                    return;
                }
                try {
                    int replicas = description.get().partitions().stream().mapToInt(p -> p.replicas().size()).min()
                            .orElse(0);
                    ConfigEntry minInSync = settings.get().get(resource).get("min.insync.replicas");
                    if (minInSync == null || minInSync.value() == null) {
                        cannotKnow(topic, new IllegalStateException("the broker did not return min.insync.replicas"));
                        return;
                    }
                    report(topic, replicas, Integer.parseInt(minInSync.value()));
                } catch (Exception e) {
                    cannotKnow(topic, e);
                }
            });
        } catch (RuntimeException e) {
            cannotKnow(topic, e);
        }
    }

    private static void report(String topic, int replicas, int minInSync) {
        Optional<String> warning = verdict(topic, replicas, minInSync);
        if (warning.isPresent()) {
            LOG.warning(warning::get);
        } else {
            LOG.info(() -> "Kafka topic " + topic + ": " + replicas + " replicas, min.insync.replicas=" + minInSync
                    + ": an acknowledged record survives the loss of one broker");
        }
    }

    /** What is wrong with a topic of {@code replicas} replicas and that {@code min.insync.replicas}, if anything. */
    static Optional<String> verdict(String topic, int replicas, int minInSync) {
        if (replicas < REPLICAS || minInSync < MIN_IN_SYNC) {
            return Optional.of("Kafka topic " + topic + " has " + replicas + " replica(s) and min.insync.replicas="
                    + minInSync + ": a record the broker acknowledged (and the outbox marked DELIVERED) is lost if the"
                    + " broker that leads its partition dies before another copy exists. For the outbox's guarantee"
                    + " give it replication factor >= " + REPLICAS + " and min.insync.replicas >= " + MIN_IN_SYNC
                    + " (see 'A production Kafka cluster' in the settings reference).");
        }
        if (minInSync >= replicas) {
            return Optional.of("Kafka topic " + topic + " has " + replicas + " replicas and min.insync.replicas="
                    + minInSync + ": every replica must be in sync for a send to be acknowledged, so one broker down"
                    + " stops publishing to it (events wait, nothing is lost). Use min.insync.replicas = replicas - 1.");
        }
        return Optional.empty();
    }

    private static void cannotKnow(String topic, Throwable failure) {
        Throwable cause = failure instanceof java.util.concurrent.ExecutionException && failure.getCause() != null
                ? failure.getCause() : failure;
        LOG.log(Level.INFO, () -> "Cannot check how many replicas Kafka topic " + topic + " has ("
                + cause.getClass().getSimpleName() + "): the outbox needs Describe and DescribeConfigs on it to say."
                + " Make sure it has replication factor >= " + REPLICAS + " and min.insync.replicas >= " + MIN_IN_SYNC
                + ", or an acknowledged record can die with its leader.");
    }

    private Admin admin() {
        Admin open = admin;
        if (open == null) {
            synchronized (this) {
                open = admin;
                if (open == null) {
                    open = Admin.create(adminProperties);
                    admin = open;
                }
            }
        }
        return open;
    }

    @Override
    public void close() {
        closed = true;
        Admin open = admin;
        if (open != null) {
            open.close(Duration.ofSeconds(2));
        }
    }
}
