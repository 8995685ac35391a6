package dev.outbox.internal.inbox.kafka;

import dev.outbox.internal.config.Settings;
import dev.outbox.internal.transport.kafka.KafkaMessages;
import dev.outbox.internal.transport.kafka.KafkaSettings;
import jakarta.annotation.PostConstruct;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.serialization.StringSerializer;
import org.eclipse.microprofile.config.Config;
import org.eclipse.microprofile.config.ConfigProvider;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.logging.Logger;

/**
 * Where a Kafka consumer parks a record it cannot apply (R7.5 at the consumer): the dead-letter topic
 * {@code outbox.inbox.dead-letter-topic} (default {@code {topic}.dead-letter}) gets the same key, value and
 * headers plus {@code outboxFailure} and {@code outboxFailedConsumer}. Parking retries until the broker took
 * the record: a record is never acknowledged unparked.
 */
@ApplicationScoped
public class DeadLetters {

    private static final Logger LOG = Logger.getLogger(DeadLetters.class.getName());
    public static final String FAILURE_HEADER = "outboxFailure";
    public static final String CONSUMER_HEADER = "outboxFailedConsumer";

    private String topicTemplate;
    private KafkaSettings kafka;
    private volatile Producer<String, String> producer;

    @PostConstruct
    void configure() {
        Config config = ConfigProvider.getConfig();
        topicTemplate = Settings.INBOX_DEAD_LETTER_TOPIC.text(name -> config.getOptionalValue(name, String.class));
        KafkaSettings shared = KafkaSettings.read(name -> config.getOptionalValue(name, String.class),
                config.getPropertyNames());
        kafka = new KafkaSettings(shared.bootstrapServers(), shared.clientId() + "-dead-letters", shared.sendTimeout(),
                shared.maxBlock(), shared.passThrough());
    }

    @PreDestroy
    void close() {
        Producer<String, String> open = producer;
        if (open != null) {
            open.close(Duration.ofSeconds(5));
        }
    }

    /**
     * @param what how logs name the record: ids and versions, never the payload (R6.3)
     */
    public void park(String consumer, String topic, String key, String value, Headers headers, String failure,
                     String position, String what) {
        String deadLetterTopic = topicTemplate.replace("{topic}", topic == null ? "unknown" : topic);
        while (true) {
            try {
                ProducerRecord<String, String> parked = new ProducerRecord<>(deadLetterTopic, key, value);
                if (headers != null) {
                    headers.forEach(h -> parked.headers().add(h));
                }
                parked.headers().add(FAILURE_HEADER, failure.getBytes(StandardCharsets.UTF_8));
                parked.headers().add(CONSUMER_HEADER, consumer.getBytes(StandardCharsets.UTF_8));
                producer().send(parked).get(kafka.sendTimeout().toMillis() + 5_000, TimeUnit.MILLISECONDS);
                KafkaMessages.DEAD_LETTERED.log(LOG,
                        () -> "consumer " + consumer + " parked " + what + " from " + position + " on "
                        + deadLetterTopic + " after " + failure + "; repair and replay it from there");
                return;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while parking " + what, e);
            } catch (Exception e) {
                KafkaMessages.DEAD_LETTER_DEFERRED.log(LOG,
                        () -> "consumer " + consumer + " could not park " + what + " yet: " + e.getClass().getName());
                InboxDelivery.pause(5_000);
            }
        }
    }

    private Producer<String, String> producer() {
        Producer<String, String> open = producer;
        if (open == null) {
            synchronized (this) {
                open = producer;
                if (open == null) {
                    open = new KafkaProducer<>(kafka.producerProperties(), new StringSerializer(), new StringSerializer());
                    producer = open;
                }
            }
        }
        return open;
    }
}
