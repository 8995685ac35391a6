package dev.outbox.inbox.reactive;

import dev.outbox.config.SettingReader;
import dev.outbox.event.EventId;
import dev.outbox.inbox.Inbox;
import dev.outbox.transport.OutboxHeaders;
import dev.outbox.transport.kafka.KafkaSettings;
import jakarta.annotation.PostConstruct;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import org.eclipse.microprofile.config.Config;
import org.eclipse.microprofile.config.ConfigProvider;
import org.eclipse.microprofile.reactive.messaging.Message;

import java.nio.charset.StandardCharsets;
import java.sql.SQLException;
import java.sql.SQLTransientException;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The inbox for MicroProfile Reactive Messaging consumers on Kafka ({@code @Incoming} methods), with the same
 * guarantees as the MDB inbox: the mark and the business change share one transaction (R5.1, R5.3), duplicates
 * are absorbed and counted, a version gap is held for the gap window (R5.7), and the offset is acknowledged
 * only after that transaction committed (R5.5). Use it as the whole body of the method:
 *
 * <pre>{@code
 * @Incoming("order-events")
 * public CompletionStage<Void> onEvent(Message<String> message) {
 *     return inbox.process("invoicing", message, invoices::apply);
 * }
 * }</pre>
 *
 * <p>It never nacks: on Open Liberty a nack stops the whole channel until restart. A change that keeps failing
 * is retried {@code outbox.inbox.max-attempts} times (default 5) and then parked on the dead-letter topic
 * ({@code outbox.inbox.dead-letter-topic}, default {@code <topic>.dead-letter}) with its original headers and
 * value, then acknowledged; an outage of the database is retried until it ends and parks nothing.
 */
@ApplicationScoped
public class ReactiveInbox {

    private static final Logger LOG = Logger.getLogger(ReactiveInbox.class.getName());
    static final String FAILURE_HEADER = "outboxFailure";
    static final String CONSUMER_HEADER = "outboxFailedConsumer";
    private static final long HOLD_PAUSE_MS = 250;
    private static final long MAX_PAUSE_MS = 5_000;

    @Inject
    Inbox inbox;

    @Inject
    InboxTransaction transaction;

    private int maxAttempts;
    private String deadLetterTopic;
    private KafkaSettings kafka;
    private volatile Producer<String, String> deadLetters;

    @PostConstruct
    void configure() {
        Config config = ConfigProvider.getConfig();
        SettingReader reader = new SettingReader(name -> config.getOptionalValue(name, String.class));
        maxAttempts = reader.integer("outbox.inbox.max-attempts", 5, 1, 1000);
        deadLetterTopic = reader.text("outbox.inbox.dead-letter-topic", "{topic}.dead-letter");
        kafka = KafkaSettings.read(name -> config.getOptionalValue(name, String.class), config.getPropertyNames());
    }

    @PreDestroy
    void close() {
        Producer<String, String> open = deadLetters;
        if (open != null) {
            open.close(Duration.ofSeconds(5));
        }
    }

    /**
     * Runs {@code change} once per event for {@code consumer}, in a transaction with the inbox mark, and answers
     * the acknowledgement of {@code message} once that has committed (or the message was parked).
     */
    public CompletionStage<Void> process(String consumer, Message<String> message, Consumer<InboxedEvent> change) {
        Optional<RecordHeaders> headers = RecordHeaders.of(message);
        InboxedEvent event = headers.map(h -> eventOf(h, message.getPayload())).orElse(null);
        String position = headers.map(RecordHeaders::position).orElse("?");
        if (event == null) {
            // Not an outbox record: it cannot be deduplicated. Park it rather than loop on it (or drop it).
            park(consumer, message, position, "NotAnOutboxRecord", null);
            return acknowledge(consumer, message, position);
        }
        int failures = 0;
        while (true) {
            try {
                Inbox.Receipt receipt = transaction.run(() -> {
                    Inbox.Receipt decided = inbox.receive(consumer, event.eventId(), event.aggregateType(),
                            event.aggregateId(), event.aggregateVersion());
                    if (decided == Inbox.Receipt.HELD) {
                        throw new Held();
                    }
                    if (decided == Inbox.Receipt.FIRST) {
                        change.accept(event);
                    }
                    return decided;
                });
                if (receipt == Inbox.Receipt.DUPLICATE) {
                    LOG.info(() -> "consumer " + consumer + " absorbed duplicate " + event.describe() + ", broker id "
                            + position);
                }
                return acknowledge(consumer, message, position);
            } catch (Held held) {
                // R5.7: the mark rolled back; the inbox releases the event once the gap window has passed.
                pause(HOLD_PAUSE_MS);
            } catch (RuntimeException e) {
                if (isOutage(e)) {
                    LOG.warning(() -> "consumer " + consumer + " cannot reach its database for " + event.describe()
                            + " (" + e.getClass().getName() + "); retrying until it is back");
                    pause(MAX_PAUSE_MS);
                    continue;
                }
                failures++;
                int attempt = failures;
                if (failures >= maxAttempts) {
                    park(consumer, message, position, rootClass(e), event);
                    return acknowledge(consumer, message, position);
                }
                LOG.log(Level.WARNING, "consumer " + consumer + " failed on " + event.describe() + ", attempt "
                        + attempt + " of " + maxAttempts + ", broker id " + position + ": " + rootClass(e));
                pause(Math.min(MAX_PAUSE_MS, 200L << Math.min(attempt, 10)));
            }
        }
    }

    /**
     * Acknowledges the offset. A commit that fails (the broker went away) must not fail the method: on Open Liberty
     * a failed stage stops the channel until restart. The offset is then committed with a later one, or the
     * record is redelivered after a restart and the inbox absorbs it (R5.5).
     */
    private static CompletionStage<Void> acknowledge(String consumer, Message<String> message, String position) {
        return message.ack().exceptionally(failure -> {
            LOG.warning(() -> "consumer " + consumer + " could not commit the offset of " + position + " yet ("
                    + rootClass(failure) + "); a later commit or a redelivery covers it");
            return null;
        });
    }

    private static InboxedEvent eventOf(RecordHeaders headers, String payload) {
        String id = headers.text(OutboxHeaders.EVENT_ID);
        if (id == null) {
            return null;
        }
        EventId eventId;
        try {
            eventId = EventId.parse(id);
        } catch (IllegalArgumentException e) {
            return null;
        }
        return new InboxedEvent(eventId, headers.text(OutboxHeaders.EVENT_TYPE),
                headers.text(OutboxHeaders.AGGREGATE_TYPE), headers.text(OutboxHeaders.AGGREGATE_ID),
                number(headers.text(OutboxHeaders.AGGREGATE_VERSION)),
                Optional.ofNullable(number(headers.text(OutboxHeaders.SCHEMA_VERSION))).map(Long::intValue).orElse(null),
                payload);
    }

    private static Long number(String text) {
        try {
            return text == null ? null : Long.valueOf(text);
        } catch (NumberFormatException e) {
            return null;
        }
    }

    /**
     * Parks a message on the dead-letter topic (same key, value and headers, plus the failure class and the
     * consumer), retrying until the broker took it: a message is never acknowledged unparked.
     */
    private void park(String consumer, Message<String> message, String position, String failure, InboxedEvent event) {
        String what = event == null ? "a message without a valid " + OutboxHeaders.EVENT_ID : event.describe();
        while (true) {
            try {
                ProducerRecord<String, String> parked = deadLetterOf(message, consumer, failure);
                deadLetters().send(parked).get(kafka.sendTimeout().toMillis() + 5_000, TimeUnit.MILLISECONDS);
                LOG.severe(() -> "consumer " + consumer + " parked " + what + " from " + position + " on "
                        + parked.topic() + " after " + failure + "; repair and replay it from there");
                return;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while parking " + what, e);
            } catch (Exception e) {
                LOG.warning(() -> "consumer " + consumer + " could not park " + what + " yet: " + e.getClass().getName());
                pause(MAX_PAUSE_MS);
            }
        }
    }

    private ProducerRecord<String, String> deadLetterOf(Message<String> message, String consumer, String failure) {
        ConsumerRecord<?, ?> source = unwrapped(message);
        String topic = source == null ? "unknown" : source.topic();
        String key = source == null || source.key() == null ? null : source.key().toString();
        ProducerRecord<String, String> parked = new ProducerRecord<>(deadLetterTopic.replace("{topic}", topic), key,
                message.getPayload());
        if (source != null) {
            source.headers().forEach(h -> parked.headers().add(h));
        }
        parked.headers().add(FAILURE_HEADER, failure.getBytes(StandardCharsets.UTF_8));
        parked.headers().add(CONSUMER_HEADER, consumer.getBytes(StandardCharsets.UTF_8));
        return parked;
    }

    private static ConsumerRecord<?, ?> unwrapped(Message<?> message) {
        try {
            return message.unwrap(ConsumerRecord.class);
        } catch (RuntimeException e) {
            return null;
        }
    }

    private Producer<String, String> deadLetters() {
        Producer<String, String> open = deadLetters;
        if (open == null) {
            synchronized (this) {
                open = deadLetters;
                if (open == null) {
                    open = new KafkaProducer<>(kafka.producerProperties(), new StringSerializer(), new StringSerializer());
                    deadLetters = open;
                }
            }
        }
        return open;
    }

    /** A database that is away, not a change that fails: connection errors, deadlocks, serialization failures. */
    static boolean isOutage(Throwable failure) {
        for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
            if (cause instanceof SQLTransientException) {
                return true;
            }
            if (cause instanceof SQLException sql && sql.getSQLState() != null
                    && (sql.getSQLState().startsWith("08") || sql.getSQLState().equals("40001")
                    || sql.getSQLState().equals("40P01") || sql.getSQLState().equals("57P01"))) {
                return true;
            }
            if (cause.getCause() == cause) {
                break;
            }
        }
        return false;
    }

    private static String rootClass(Throwable failure) {
        Throwable root = failure;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        return root.getClass().getSimpleName();
    }

    private static void pause(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while retrying an inbox delivery", e);
        }
    }

    /** Thrown inside the transaction so the held mark rolls back. */
    private static final class Held extends RuntimeException {
        Held() {
            super(null, null, false, false);
        }
    }
}
