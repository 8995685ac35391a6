package dev.outbox.internal.transport.kafka;

import dev.outbox.internal.config.Settings;
import dev.outbox.internal.transport.TopicRisks;
import dev.outbox.internal.transport.TopicRisks.Risk;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.AuthorizationException;
import org.apache.kafka.common.errors.UnsupportedVersionException;

import java.time.Duration;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.logging.Logger;

/**
 * Tells the operator when a topic the outbox sends to cannot keep what {@code acks=all} promises (R4.7): an ack
 * means "on every in-sync replica", so with one replica, or with {@code min.insync.replicas=1}, an acknowledged
 * record dies with the broker that led its partition, and the row already says DELIVERED. Nor when the topic itself
 * deletes records a consumer has not read yet (R5.7): a compacted topic drops an aggregate's earlier version once a
 * later one exists, and a retention shorter than {@code outbox.kafka.consumer-lag-budget} drops whatever a stopped
 * consumer has not read by then; a strict consumer then waits for that version forever. What it finds goes to
 * {@link TopicRisks} (readiness data, a gauge) as well as to the log. A topic is checked once,
 * after its first acknowledged send (the topic exists by then, and topic names come from templates, so they are
 * not known at start), through the admin API, on a thread of its own: the check never delays a send. Where the
 * cluster does not let the outbox read the topic's description or settings, it says so once and why; a check that
 * failed for another reason (a failover, a topic not yet visible everywhere) is tried again after a later ack.
 */
final class TopicDurability implements AutoCloseable {

    private static final Logger LOG = Logger.getLogger(TopicDurability.class.getName());
    /** What docs/settings.md asks of a production topic: one broker may die and acked records stay acked. */
    static final int REPLICAS = 3;
    static final int MIN_IN_SYNC = 2;
    private static final Duration CHECK_TIMEOUT = Duration.ofSeconds(15);

    private final Map<String, Object> adminProperties;
    private final Duration lagBudget;
    private final TopicRisks risks;
    private final Set<String> checked = ConcurrentHashMap.newKeySet();
    /** One daemon thread: creating the admin client (DNS, TLS, SASL) and every check happen here, never on a send. */
    private final ExecutorService checker = Executors.newSingleThreadExecutor(task -> {
        Thread thread = new Thread(task, "outbox-kafka-durability-check");
        thread.setDaemon(true);
        return thread;
    });
    private Admin admin; // only touched by the checker thread
    private volatile boolean closed;

    TopicDurability(KafkaSettings settings, Duration lagBudget, TopicRisks risks) {
        this.lagBudget = lagBudget;
        this.risks = risks;
        // The producer's security settings (SASL, TLS) are the admin client's too.
        Map<String, Object> properties = AdminClientSettings.of(settings.passThrough(), settings.bootstrapServers());
        properties.put(AdminClientConfig.CLIENT_ID_CONFIG, settings.clientId() + "-durability-check");
        properties.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, (int) CHECK_TIMEOUT.toMillis());
        properties.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, (int) CHECK_TIMEOUT.toMillis() / 2);
        this.adminProperties = Map.copyOf(properties);
    }

    /** Starts the check of {@code topic} unless it ran or runs already; returns at once. */
    void checkOnce(String topic) {
        if (closed || !checked.add(topic)) {
            return;
        }
        try {
            checker.execute(() -> check(topic));
        } catch (RejectedExecutionException e) {
            // closed meanwhile: the application is stopping
        }
    }

    private void check(String topic) {
        if (closed) {
            return;
        }
        try {
            if (admin == null) {
                admin = Admin.create(adminProperties);
            }
            TopicDescription description = admin.describeTopics(List.of(topic)).topicNameValues().get(topic)
                    .get(CHECK_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
            ConfigResource resource = new ConfigResource(ConfigResource.Type.TOPIC, topic);
            Config config = admin.describeConfigs(List.of(resource)).all()
                    .get(CHECK_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS).get(resource);
            int replicas = description.partitions().stream().mapToInt(p -> p.replicas().size()).min().orElse(0);
            Map<Risk, String> found = new EnumMap<>(Risk.class);
            found.putAll(retentionRisks(topic, value(config, "cleanup.policy"), value(config, "retention.ms"),
                    lagBudget));
            found.values().forEach(why -> KafkaMessages.TOPIC_LOSES_VERSIONS.log(LOG, () -> why));
            String minInSync = value(config, "min.insync.replicas");
            if (minInSync == null) {
                cannotKnow(topic, "the broker did not return min.insync.replicas");
            } else {
                int min = Integer.parseInt(minInSync);
                report(topic, replicas, min);
                if (replicas < REPLICAS || min < MIN_IN_SYNC) {
                    found.put(Risk.UNDER_REPLICATED, verdict(topic, replicas, min).orElseThrow());
                }
            }
            risks.checked(topic, found);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (Exception e) {
            Throwable cause = e instanceof ExecutionException && e.getCause() != null ? e.getCause() : e;
            if (cause instanceof AuthorizationException || cause instanceof UnsupportedVersionException) {
                cannotKnow(topic, cause.getClass().getSimpleName() + ": the outbox needs Describe and"
                        + " DescribeConfigs on it to say");
            } else {
                // A failover, a timeout, a topic not yet known everywhere: try again after a later ack.
                LOG.fine(() -> "Kafka topic " + topic + ": durability check failed (" + cause.getClass().getName()
                        + "); tried again after a later send");
                checked.remove(topic);
            }
        }
    }

    private static void report(String topic, int replicas, int minInSync) {
        Optional<String> warning = verdict(topic, replicas, minInSync);
        if (warning.isPresent()) {
            KafkaMessages.TOPIC_NOT_DURABLE.log(LOG, warning::get);
        } else {
            KafkaMessages.TOPIC_DURABLE.log(LOG,
                    () -> "Kafka topic " + topic + ": " + replicas + " replicas, min.insync.replicas=" + minInSync
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

    /**
     * What the topic's own settings delete before a consumer {@code lagBudget} behind has read it (R5.7): compaction
     * keeps only the latest record of each key (the aggregate id), and {@code retention.ms} (-1: forever) deletes
     * records older than it.
     */
    static Map<Risk, String> retentionRisks(String topic, String cleanupPolicy, String retentionMs,
                                            Duration lagBudget) {
        Map<Risk, String> risks = new EnumMap<>(Risk.class);
        if (cleanupPolicy != null && cleanupPolicy.toLowerCase(Locale.ROOT).contains("compact")) {
            risks.put(Risk.COMPACTED, "Kafka topic " + topic + " is compacted (cleanup.policy=" + cleanupPolicy + "):"
                    + " Kafka may delete an aggregate's version once a later one exists, and a strict consumer that had"
                    + " not read it yet waits for it forever. Give outbox topics cleanup.policy=delete.");
        }
        long retention = retentionMs == null ? -1 : Long.parseLong(retentionMs.trim());
        if (retention >= 0 && Duration.ofMillis(retention).compareTo(lagBudget) < 0) {
            risks.put(Risk.SHORT_RETENTION, "Kafka topic " + topic + " deletes records after retention.ms=" + retention
                    + " (" + readable(Duration.ofMillis(retention)) + "), sooner than "
                    + Settings.KAFKA_CONSUMER_LAG_BUDGET.name() + " (" + readable(lagBudget) + "): a consumer stopped"
                    + " or behind for longer loses the versions deleted meanwhile. Raise the topic's retention.ms, or lower the budget to what the consumers can keep.");
        }
        return risks;
    }

    /** Whole days as the settings write them (P7D), anything else as ISO-8601 time (PT36H). */
    private static String readable(Duration duration) {
        return duration.toSeconds() % 86_400 == 0 && duration.getNano() == 0 ? "P" + duration.toDays() + "D"
                : duration.toString();
    }

    private static String value(Config config, String name) {
        ConfigEntry entry = config == null ? null : config.get(name);
        return entry == null ? null : entry.value();
    }

    private static void cannotKnow(String topic, String why) {
        KafkaMessages.TOPIC_UNCHECKED.log(LOG,
                () -> "Cannot check how many replicas Kafka topic " + topic + " has (" + why + "). Make sure it has"
                + " replication factor >= " + REPLICAS + " and min.insync.replicas >= " + MIN_IN_SYNC
                + ", or an acknowledged record can die with its leader.");
    }

    @Override
    public void close() {
        closed = true;
        checker.shutdownNow();
        try {
            if (!checker.awaitTermination(5, TimeUnit.SECONDS)) {
                LOG.fine("Kafka durability check still running at close");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        // After the checker thread ended, nothing creates a client any more.
        Admin open = admin;
        if (open != null) {
            open.close(Duration.ofSeconds(2));
        }
    }
}
