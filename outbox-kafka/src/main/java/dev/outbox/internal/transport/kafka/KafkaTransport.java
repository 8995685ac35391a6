package dev.outbox.internal.transport.kafka;

import dev.outbox.OutboxEvent;
import dev.outbox.OutboxHeaders;
import dev.outbox.internal.config.Settings;
import dev.outbox.internal.transport.CloudEventAttributes;
import dev.outbox.internal.transport.TopicRisks;
import dev.outbox.spi.OutboundEvent;
import dev.outbox.spi.SendDeadline;
import dev.outbox.spi.SendResult;
import dev.outbox.spi.Transport;
import jakarta.annotation.PostConstruct;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.serialization.StringSerializer;
import org.eclipse.microprofile.config.Config;
import org.eclipse.microprofile.config.ConfigProvider;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.logging.Logger;

/**
 * Delivers to Kafka with {@code kafka-clients}: an idempotent producer with {@code acks=all}, so an acked record
 * is on every in-sync replica and a producer retry never writes it twice (R4.7). The record key is the
 * aggregate id, so one aggregate's versions share a partition and keep their order (R9.1); headers carry the
 * event id, type, aggregate and versions ({@link OutboxHeaders}); the value is the payload exactly as recorded.
 *
 * <p>A batch is sent asynchronously and then awaited, so the producer batches records on the wire; each result
 * carries the partition and offset the broker assigned. The producer is created on the first send (a server
 * that never publishes to Kafka never connects) and closed when the application stops.
 */
@ApplicationScoped
public class KafkaTransport implements Transport {

    private static final Logger LOG = Logger.getLogger(KafkaTransport.class.getName());
    /** How long past delivery.timeout.ms the acks are awaited before the outcome counts as unknown. */
    private static final Duration ACK_GRACE = Duration.ofSeconds(5);

    private KafkaSettings settings;
    private KafkaTopics topics;
    private CloudEventAttributes cloudEvents;
    private volatile Producer<String, String> producer;
    private TopicDurability durability;

    @Inject
    TopicRisks risks;

    @PostConstruct
    void configure() {
        Config config = ConfigProvider.getConfig();
        settings = KafkaSettings.read(name -> config.getOptionalValue(name, String.class), config.getPropertyNames());
        topics = new KafkaTopics(name -> config.getOptionalValue(name, String.class));
        cloudEvents = new CloudEventAttributes(name -> config.getOptionalValue(name, String.class));
        durability = new TopicDurability(settings,
                Settings.KAFKA_CONSUMER_LAG_BUDGET.duration(name -> config.getOptionalValue(name, String.class)), risks);
    }

    @Override
    public String destinationOf(OutboxEvent event) {
        return "kafka:" + topics.topicFor(event);
    }

    @PreDestroy
    void close() {
        durability.close();
        Producer<String, String> open = producer;
        if (open != null) {
            open.close(Duration.ofSeconds(5));
        }
    }

    @Override
    public String name() {
        return "kafka";
    }

    /** One blocking send of max-block, then every ack awaited until the send timeout plus five seconds. */
    @Override
    public Optional<SendBound> longestSend() {
        return Optional.of(new SendBound(settings.maxBlock().plus(settings.sendTimeout()).plus(ACK_GRACE),
                "outbox.kafka.max-block-ms + outbox.kafka.send-timeout-ms + " + ACK_GRACE.toSeconds() + " s"));
    }

    @Override
    public List<SendResult> send(List<OutboundEvent> events, SendDeadline deadline) {
        Producer<String, String> kafka;
        try {
            kafka = producer();
        } catch (KafkaException e) {
            // A producer that cannot even be built (bad bootstrap address, bad security settings) sends nothing.
            KafkaMessages.PRODUCER_NOT_CREATED.log(LOG,
                    () -> "Kafka producer could not be created: " + e.getClass().getName() + ": " + e.getMessage());
            return events.stream().<SendResult>map(x -> new SendResult.TransientFailure(e.getClass().getSimpleName()))
                    .toList();
        }
        List<Future<RecordMetadata>> acks = new ArrayList<>(events.size());
        List<SendResult> refused = new ArrayList<>(events.size());
        SendResult unreachable = null;
        for (OutboundEvent event : events) {
            if (unreachable != null) {
                // Each further send would block max-block-ms again: the rest of the batch waits for the next run.
                acks.add(null);
                refused.add(unreachable);
                continue;
            }
            if (deadline.passed()) {
                // R4.3: an earlier transport of the route took the lease's time; nothing more goes out under it.
                acks.add(null);
                refused.add(deadline.missed());
                continue;
            }
            try {
                Future<RecordMetadata> ack = kafka.send(recordOf(event, topics.topicFor(event.event()),
                        cloudEvents.of(event)));
                acks.add(ack);
                refused.add(ack.isDone() ? refusal(ack) : null);
            } catch (RuntimeException e) {
                // KafkaException, and what else a producer may throw (IllegalStateException): Transport never throws.
                acks.add(null);
                refused.add(KafkaFailures.classify(e, true));
            }
            SendResult last = refused.get(refused.size() - 1);
            if (last instanceof SendResult.TransientFailure t && t.errorClass().equals("TimeoutException")) {
                unreachable = last;
                KafkaMessages.BROKER_SILENT.log(LOG,
                        () -> "Kafka broker " + settings.bootstrapServers() + " did not answer within "
                        + settings.maxBlock().toMillis() + " ms; " + events.size() + " events retry later");
            }
        }
        if (unreachable == null && acks.stream().anyMatch(ack -> ack != null && !ack.isDone())) {
            // The whole batch is queued and will be awaited: send it now instead of lingering linger.ms for more
            // records that are not coming. Bounded by delivery.timeout.ms (the send timeout).
            try {
                kafka.flush();
            } catch (RuntimeException e) {
                LOG.fine(() -> "Kafka flush interrupted: " + e.getClass().getName() + "; the acks are awaited");
            }
        }
        long acksBy = System.nanoTime() + settings.sendTimeout().plus(ACK_GRACE).toNanos();
        List<SendResult> results = new ArrayList<>(events.size());
        for (int i = 0; i < events.size(); i++) {
            results.add(refused.get(i) != null ? refused.get(i) : await(acks.get(i), acksBy));
        }
        return results;
    }

    private static SendResult refusal(Future<RecordMetadata> ack) {
        try {
            ack.get();
            return null;
        } catch (ExecutionException e) {
            return KafkaFailures.classify(e.getCause(), true);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new SendResult.TransientFailure("Interrupted");
        }
    }

    private SendResult await(Future<RecordMetadata> ack, long deadline) {
        try {
            RecordMetadata acked = ack.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            // R4.7: an ack is only as durable as the topic's replicas; said once per topic, off the send path.
            durability.checkOnce(acked.topic());
            String brokerId = acked.topic() + "-" + acked.partition() + "@" + acked.offset();
            // The row's broker_message_id holds 200 characters; the partition and offset are the tail.
            brokerId = brokerId.length() <= 200 ? brokerId : brokerId.substring(brokerId.length() - 200);
            return new SendResult.Delivered(brokerId, acked.partition(), acked.offset());
        } catch (ExecutionException e) {
            return KafkaFailures.classify(e.getCause(), false);
        } catch (TimeoutException e) {
            return new SendResult.UnknownOutcome("AckTimeout");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new SendResult.UnknownOutcome("Interrupted");
        }
    }

    /**
     * The record of one event: keyed by its aggregate id (R9.1), the payload as value, the outbox's headers.
     *
     * @param cloudEvent the CloudEvents attributes to add in the Kafka binding's binary mode ({@code ce_<name>}
     *                   headers, {@code content-type} for datacontenttype), or none
     */
    static ProducerRecord<String, String> recordOf(OutboundEvent outbound, String topic, Map<String, String> cloudEvent) {
        OutboxEvent event = outbound.event();
        // A null value is a tombstone on a compacted topic: an event stored by reference (R3.5) goes with an empty
        // value and its reference in a header, as on JMS.
        ProducerRecord<String, String> record = new ProducerRecord<>(topic, event.aggregateId(),
                event.payload() == null ? "" : event.payload());
        Headers headers = record.headers();
        header(headers, OutboxHeaders.EVENT_ID, outbound.id().toString());
        header(headers, OutboxHeaders.EVENT_TYPE, event.eventType());
        header(headers, OutboxHeaders.AGGREGATE_TYPE, event.aggregateType());
        header(headers, OutboxHeaders.AGGREGATE_ID, event.aggregateId());
        header(headers, OutboxHeaders.AGGREGATE_VERSION, Long.toString(event.aggregateVersion()));
        header(headers, OutboxHeaders.ORDERING, outbound.ordering().header());
        header(headers, OutboxHeaders.SCHEMA_VERSION, Integer.toString(event.schemaVersion()));
        if (event.payloadReference() != null) {
            header(headers, OutboxHeaders.PAYLOAD_REFERENCE, event.payloadReference().toString());
        }
        // R5.7: what a consumer receiving only some of the aggregate's types waits for
        if (outbound.previousVersions() != null) {
            header(headers, OutboxHeaders.PREVIOUS_VERSIONS, outbound.previousVersions());
        }
        // R6.7: the recording span's context, as W3C names it; an event recorded untraced carries none.
        if (outbound.trace() != null) {
            header(headers, OutboxHeaders.TRACEPARENT, outbound.trace().traceParent());
            if (outbound.trace().traceState() != null) {
                header(headers, OutboxHeaders.TRACESTATE, outbound.trace().traceState());
            }
        }
        cloudEvent.forEach((name, value) -> header(headers,
                CloudEventAttributes.DATA_CONTENT_TYPE.equals(name) ? "content-type" : "ce_" + name, value));
        return record;
    }

    private static void header(Headers headers, String name, String value) {
        headers.add(name, value.getBytes(StandardCharsets.UTF_8));
    }

    private Producer<String, String> producer() {
        Producer<String, String> open = producer;
        if (open == null) {
            synchronized (this) {
                open = producer;
                if (open == null) {
                    open = new KafkaProducer<>(settings.producerProperties(), new StringSerializer(), new StringSerializer());
                    producer = open;
                    KafkaMessages.PRODUCER_CONNECTED.log(LOG,
                            () -> "Kafka producer " + settings.clientId() + " connected to " + settings.bootstrapServers()
                            + " (idempotent, acks=all; pass-through settings: " + settings.passThrough().keySet() + ")");
                }
            }
        }
        return open;
    }
}
