package dev.outbox.internal.transport.kafka;

import dev.outbox.internal.config.InvalidSettingException;
import dev.outbox.internal.config.Settings;
import org.apache.kafka.clients.producer.ProducerConfig;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Function;

/**
 * The Kafka transport's settings, read once at start (their declarations, defaults and meaning are in
 * {@link Settings}).
 *
 * @param passThrough every {@code outbox.kafka.producer.<property>} variable, handed to the producer as
 *                    {@code <property>}; values are never logged, as they may hold credentials (R6.3)
 */
public record KafkaSettings(String bootstrapServers, String clientId, Duration sendTimeout, Duration maxBlock,
                            Map<String, String> passThrough) {

    public static final String PASS_THROUGH_PREFIX = Settings.KAFKA_PRODUCER.name();

    /**
     * Producer settings the outbox owns: another partitioner, ignoring keys or an interceptor that rewrites records
     * breaks per-aggregate order (R9.1), a transactional id
     * makes every plain send throw, other serializers do not take the outbox's strings.
     */
    private static final Set<String> NOT_PASSED_THROUGH = Set.of("partitioner.class", "partitioner.ignore.keys",
            "interceptor.classes", "transactional.id", "key.serializer", "value.serializer");

    public static KafkaSettings read(Function<String, Optional<String>> source, Iterable<String> names) {
        Map<String, String> passThrough = new TreeMap<>();
        for (String name : names) {
            if (name.startsWith(PASS_THROUGH_PREFIX) && name.length() > PASS_THROUGH_PREFIX.length()) {
                String property = name.substring(PASS_THROUGH_PREFIX.length());
                if (NOT_PASSED_THROUGH.contains(property)) {
                    throw new InvalidSettingException(name, "cannot be passed to the producer: the outbox sets "
                            + property + " itself (per-aggregate order, plain idempotent sends, string records)",
                            source.apply(name).orElse(""));
                }
                source.apply(name).ifPresent(v -> passThrough.put(property, v));
            }
        }
        return new KafkaSettings(
                Settings.KAFKA_BOOTSTRAP_SERVERS.text(source),
                Settings.KAFKA_CLIENT_ID.text(source),
                Settings.KAFKA_SEND_TIMEOUT.millis(source),
                Settings.KAFKA_MAX_BLOCK.millis(source),
                Map.copyOf(passThrough));
    }

    /** Names the pass-through settings but never their values, which may be credentials (R6.3). */
    @Override
    public String toString() {
        return "KafkaSettings[bootstrapServers=" + bootstrapServers + ", clientId=" + clientId + ", sendTimeout="
                + sendTimeout + ", maxBlock=" + maxBlock + ", passThrough=" + passThrough.keySet() + "]";
    }

    /** The producer's configuration: our guarantees first, then the operator's pass-through settings. */
    public Map<String, Object> producerProperties() {
        Map<String, Object> properties = new HashMap<>();
        // Throughput defaults: batch on the wire; the operator may override them through outbox.kafka.producer.*.
        properties.put(ProducerConfig.LINGER_MS_CONFIG, "5");
        properties.put(ProducerConfig.BATCH_SIZE_CONFIG, "131072");
        properties.putAll(passThrough);
        properties.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        properties.put(ProducerConfig.CLIENT_ID_CONFIG, clientId);
        // R4.7 and R9.1: not negotiable through pass-through, they are what the outbox promises.
        properties.put(ProducerConfig.ACKS_CONFIG, "all");
        properties.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
        properties.put(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, "5");
        long delivery = sendTimeout.toMillis();
        properties.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, Long.toString(delivery));
        properties.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, Long.toString(Math.min(30_000, delivery / 2)));
        properties.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, Long.toString(maxBlock.toMillis()));
        return properties;
    }
}
