package dev.outbox.it.support;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.utils.Utils;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

/**
 * A replicated KRaft cluster of three real brokers on loopback, each its own JVM and data folder, through
 * scripts/kafka-broker.sh: the test starts it, SIGKILLs a node (no clean shutdown, as a crashed machine) and
 * starts that node again on its data. Node i's broker listens on port + 2(i-1).
 */
public final class KafkaCluster implements AutoCloseable {

    public static final int NODES = 3;

    private final Path dir;
    private final int port;

    public KafkaCluster(Path dir, int port) {
        this.dir = dir;
        this.port = port;
    }

    public String bootstrapServers() {
        return IntStream.rangeClosed(1, NODES).mapToObj(i -> "127.0.0.1:" + (port + 2 * (i - 1)))
                .collect(Collectors.joining(","));
    }

    /** Wipes the folder and starts every node. */
    public void fresh() throws IOException, InterruptedException {
        run("fresh", dir.toString(), Integer.toString(port), Integer.toString(NODES));
    }

    /** Starts the nodes that are not running (a killed one comes back on its data). */
    public void startMissing() throws IOException, InterruptedException {
        run("start", dir.toString(), Integer.toString(port), Integer.toString(NODES));
    }

    /** SIGKILL of one node's JVM; returns when it has gone. */
    public void kill(int node) throws IOException {
        long pid = pid(node);
        ProcessHandle handle = ProcessHandle.of(pid).orElseThrow(() -> new IllegalStateException(
                "kafka node " + node + " (pid " + pid + ") is not running"));
        handle.destroyForcibly();
        handle.onExit().orTimeout(30, TimeUnit.SECONDS).join();
    }

    /**
     * SIGSTOP of one node's JVM: it neither answers nor replicates, and keeps its place in every in-sync replica
     * set until the leader's replica.lag.time.max.ms (30 s) passes, as a node in a long GC pause or behind a
     * network hiccup would.
     */
    public void freeze(int node) throws IOException, InterruptedException {
        signal("STOP", node);
    }

    /** SIGCONT: a frozen node goes on where it stopped. */
    public void thaw(int node) throws IOException, InterruptedException {
        signal("CONT", node);
    }

    private void signal(String signal, int node) throws IOException, InterruptedException {
        Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(pid(node))).inheritIO().start();
        if (kill.waitFor() != 0) {
            throw new IllegalStateException("kill -" + signal + " of kafka node " + node + " failed");
        }
    }

    private long pid(int node) throws IOException {
        return Long.parseLong(Files.readString(dir.resolve("node-" + node).resolve("broker.pid")).trim());
    }

    /** A topic replicated on every node, acked by two: the settings docs/settings.md asks of a production cluster. */
    public void createTopic(String topic, int partitions) throws Exception {
        try (Admin admin = admin()) {
            admin.createTopics(List.of(new NewTopic(topic, partitions, (short) NODES)
                    .configs(Map.of("min.insync.replicas", "2")))).all().get(60, TimeUnit.SECONDS);
        }
    }

    /** The node that leads the partition holding {@code key} (the producer's default partitioner: murmur2). */
    public int leaderOfKey(String topic, String key) throws Exception {
        try (Admin admin = admin()) {
            var partitions = admin.describeTopics(List.of(topic)).allTopicNames().get(30, TimeUnit.SECONDS)
                    .get(topic).partitions();
            int partition = Utils.toPositive(Utils.murmur2(key.getBytes(StandardCharsets.UTF_8))) % partitions.size();
            return partitions.get(partition).leader().id();
        }
    }

    /**
     * A group id {@code prefix + n} whose offsets live in the same partition of __consumer_offsets as {@code group}'s
     * (Kafka places a group by the hash of its id over 50 partitions), so one broker coordinates both.
     */
    public static String groupCoordinatedWith(String group, String prefix) {
        int partition = Utils.abs(group.hashCode()) % 50;
        for (int n = 0; ; n++) {
            if (Utils.abs((prefix + n).hashCode()) % 50 == partition) {
                return prefix + n;
            }
        }
    }

    /** The node that coordinates a consumer group: the one that takes its offset commits. */
    public int coordinatorOf(String group) throws Exception {
        try (Admin admin = admin()) {
            return admin.describeConsumerGroups(List.of(group)).all().get(30, TimeUnit.SECONDS).get(group)
                    .coordinator().id();
        }
    }

    public Admin admin() {
        return Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers(),
                AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, (int) Duration.ofSeconds(60).toMillis()));
    }

    @Override
    public void close() throws IOException, InterruptedException {
        run("stop", dir.toString());
    }

    private static void run(String... arguments) throws IOException, InterruptedException {
        KafkaScript.run(Duration.ofSeconds(120), arguments);
    }
}
