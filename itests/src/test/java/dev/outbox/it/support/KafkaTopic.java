package dev.outbox.it.support;

import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.StringDeserializer;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.UUID;

/** Reads a whole topic of the test broker with a real consumer of its own group: what the broker really holds. */
public final class KafkaTopic {

    private KafkaTopic() {
    }

    /** Every record of the topic, read from the beginning until a poll of {@code quiet} brings nothing new. */
    public static List<ConsumerRecord<String, String>> records(String bootstrap, String topic, Duration quiet) {
        Properties properties = new Properties();
        properties.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        properties.put(ConsumerConfig.GROUP_ID_CONFIG, "itests-reader-" + UUID.randomUUID());
        properties.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        properties.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        List<ConsumerRecord<String, String>> all = new ArrayList<>();
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(properties, new StringDeserializer(),
                new StringDeserializer())) {
            consumer.subscribe(List.of(topic));
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            boolean assigned = false;
            while (System.nanoTime() < deadline) {
                int before = all.size();
                consumer.poll(quiet).forEach(all::add);
                assigned |= !consumer.assignment().isEmpty();
                if (assigned && all.size() == before) {
                    break;
                }
            }
        }
        return all;
    }

    /** The last value of a header as text, or null. */
    public static String header(ConsumerRecord<String, String> record, String name) {
        Header header = record.headers().lastHeader(name);
        return header == null ? null : new String(header.value(), StandardCharsets.UTF_8);
    }
}
