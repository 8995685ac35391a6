package dev.outbox.kafka;

import dev.outbox.InboxedEvent;
import dev.outbox.internal.config.InvalidSettingException;
import dev.outbox.internal.inbox.InboxAttempt;
import dev.outbox.internal.inbox.Received;
import dev.outbox.internal.inbox.ReleaseSweep;
import dev.outbox.internal.inbox.kafka.DeadLetters;
import dev.outbox.internal.inbox.kafka.InboxDelivery;
import dev.outbox.internal.inbox.kafka.KafkaLag;
import dev.outbox.internal.inbox.kafka.RecordHeaders;
import dev.outbox.internal.inbox.watch.ConsumerWatch;
import dev.outbox.internal.transport.kafka.KafkaMessages;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Headers;
import org.eclipse.microprofile.config.Config;
import org.eclipse.microprofile.config.ConfigProvider;
import org.eclipse.microprofile.reactive.messaging.Message;

import java.lang.reflect.Method;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.logging.Logger;

/**
 * The inbox for MicroProfile Reactive Messaging consumers on Kafka ({@code @Incoming} methods), with the
 * guarantees of {@link InboxDelivery}: the offset is acknowledged only after the inbox transaction committed
 * (R5.5). Use it as the whole body of the method:
 *
 * <pre>{@code
 * @Incoming("order-events")
 * public CompletionStage<Void> onEvent(Message<String> message) {
 *     return inbox.process("loyalty", message, loyalty::apply);
 * }
 * }</pre>
 *
 * <p>It never nacks: on Open Liberty a nack stops the whole channel until restart. Note that Open Liberty
 * 26.0.0.3's {@code liberty-kafka} connector also stops a channel for good when the broker goes away
 * (CWMRX1002E, WakeupException): nothing is lost (offsets were committed only for what the inbox applied) and
 * a restart resumes. Where consumers must ride out broker outages, use {@link dev.outbox.kafka.KafkaInbox}.
 * Call {@link #watch} at start so such a stop turns liveness DOWN instead of going unnoticed.
 */
@ApplicationScoped
public class ReactiveInbox {

    private static final Logger LOG = Logger.getLogger(ReactiveInbox.class.getName());

    @Inject
    InboxDelivery delivery;

    @Inject
    DeadLetters deadLetters;

    @Inject
    ConsumerWatch watch;

    @Inject
    KafkaLag lag;

    @Inject
    InboxAttempt attempt;

    @Inject
    ReleaseSweep sweep;

    /**
     * How long after its first record a consumer may still be unwatched: records often arrive before the
     * application's start-up observers, where {@link #watch} is called, have run.
     */
    static final Duration WATCH_GRACE = Duration.ofMinutes(1);

    /** The consumers {@link #watch} checked. */
    private final Set<String> watched = ConcurrentHashMap.newKeySet();
    /** When each consumer not (yet) watched processed its first record; {@link #said} once the line was logged. */
    private final Map<String, Instant> unwatchedSince = new ConcurrentHashMap<>();
    private final Set<String> said = ConcurrentHashMap.newKeySet();
    Clock clock = Clock.systemUTC();

    /**
     * Watches {@code consumer}, which reads {@code channel}, for stalls (R6.1): liveness goes DOWN naming
     * it when its consumer group has records waiting for {@code outbox.health.consumer-stall} and it finished none.
     * The group, topic and cluster come from the channel's own settings ({@code mp.messaging.incoming.<channel>.
     * group.id}, {@code .topic}, {@code .bootstrap.servers}, else {@code outbox.kafka.bootstrap-servers}).
     *
     * <pre>{@code
     * void start(@Observes Startup startup) {
     *     inbox.watch("loyalty", "order-events");
     * }
     * }</pre>
     *
     * <p>It refuses a channel that commits offsets by itself (R5.5): {@code enable.auto.commit} must be false.
     *
     * @throws InvalidSettingException naming the channel's {@code group.id} when it has none (a group the platform
     *                                 makes up cannot be watched), or its {@code enable.auto.commit} unless false
     */
    public void watch(String consumer, String channel) {
        Config config = ConfigProvider.getConfig();
        Function<String, Optional<String>> source = name -> config.getOptionalValue(name, String.class);
        Iterable<String> names = config.getPropertyNames();
        IncomingChannel incoming = IncomingChannel.read(channel, source, names);
        incoming.requireCommitOnAcknowledgement(consumer);
        watched(consumer);
        watch.watch(consumer, lag.of(incoming.bootstrapServers(source, names), incoming.client(),
                incoming.group(consumer), incoming.topic()));
    }

    /**
     * Runs {@code change} once per event for {@code consumer}, in a transaction with the inbox mark, and answers
     * the acknowledgement of {@code message} once that has committed (or the message was parked).
     */
    public CompletionStage<Void> process(String consumer, Message<String> message, Consumer<InboxedEvent> change) {
        sayIfUnwatched(consumer);
        // R5.7: the waiting events whose turn came go on between messages too (a skip, a recorded failure)
        try {
            sweep.keep(consumer, () -> attempt.releaseDue(consumer, turn -> change.accept(turn.event())));
        } catch (RuntimeException notNow) {
            // Never fails a message (a failed stage stops the channel): the next message sweeps all the same.
            LOG.fine(() -> "consumer " + consumer + ": idle release not registered (" + notNow + ")");
        }
        Source source = Source.of(message);
        Optional<RecordHeaders> headers = Optional.ofNullable(source.headers())
                .map(found -> new RecordHeaders(found, source.position()));
        Received received = headers.flatMap(h -> h.received(message.getPayload())).orElse(null);
        String position = source.position();
        String topic = source.topic();
        String key = source.key();
        Headers kafkaHeaders = source.headers();
        if (received == null) {
            deadLetters.park(consumer, topic, key, message.getPayload(), kafkaHeaders, "NotAnOutboxRecord", position,
                    "a message without a valid outbox event id");
        } else {
            delivery.deliver(consumer, received, change, failure -> deadLetters.park(consumer, topic, key,
                    message.getPayload(), kafkaHeaders, failure, position, received.event().describe()));
        }
        watch.progressed(consumer);
        return acknowledge(consumer, message, position);
    }

    void watched(String consumer) {
        watched.add(consumer);
    }

    /**
     * R5.5: only {@link #watch} knows the channel, so only it can refuse one that commits offsets by itself. A
     * consumer still unwatched {@link #WATCH_GRACE} after its first record is named once.
     */
    private void sayIfUnwatched(String consumer) {
        if (watched.contains(consumer) || said.contains(consumer)) {
            return;
        }
        Instant first = unwatchedSince.computeIfAbsent(consumer, any -> clock.instant());
        if (clock.instant().isBefore(first.plus(WATCH_GRACE)) || !said.add(consumer)) {
            return;
        }
        KafkaMessages.CHANNEL_UNWATCHED.log(LOG, () -> "consumer " + consumer + " has processed records for "
                + WATCH_GRACE.toSeconds() + " s, but no ReactiveInbox.watch(\"" + consumer + "\", <channel>) named its"
                + " channel: its mp.messaging.incoming.<channel>.enable.auto.commit is unchecked (true commits"
                + " offsets of records not yet applied, R5.5) and liveness does not watch it; call watch at start");
    }

    /**
     * Acknowledges the offset. A commit that fails (the broker went away) must not fail the method: a failed
     * stage stops the channel. The offset is committed with a later one, or the record comes again and the
     * inbox absorbs it (R5.5).
     */
    private static CompletionStage<Void> acknowledge(String consumer, Message<String> message, String position) {
        return message.ack().exceptionally(failure -> {
            KafkaMessages.OFFSET_COMMIT_DEFERRED.log(LOG,
                    () -> "consumer " + consumer + " could not commit the offset of " + position + " yet ("
                    + failure.getClass().getSimpleName() + "); a later commit or a redelivery covers it");
            return null;
        });
    }

    /**
     * Where a message came from: its topic, key, headers and position, so a parked one keeps its identity on the
     * dead-letter topic (R4.5, R6.3). Open Liberty's liberty-kafka unwraps a message to its ConsumerRecord;
     * SmallRye's smallrye-kafka (WildFly) hands an IncomingKafkaRecord whose getters are found reflectively, so no
     * server's type is named here.
     */
    record Source(String topic, String key, Headers headers, String position) {

        static Source of(Message<?> message) {
            ConsumerRecord<?, ?> record = unwrapped(message);
            if (record != null) {
                return new Source(record.topic(), record.key() == null ? null : record.key().toString(),
                        record.headers(), record.topic() + "-" + record.partition() + "@" + record.offset());
            }
            Object topic = getter(message, "getTopic");
            Object key = getter(message, "getKey");
            Object headers = getter(message, "getHeaders");
            Object partition = getter(message, "getPartition");
            Object offset = getter(message, "getOffset");
            return new Source(topic == null ? null : topic.toString(), key == null ? null : key.toString(),
                    headers instanceof Headers found ? found : null,
                    topic == null ? "?" : topic + "-" + partition + "@" + offset);
        }

        private static ConsumerRecord<?, ?> unwrapped(Message<?> message) {
            try {
                return message.unwrap(ConsumerRecord.class);
            } catch (RuntimeException notLiberty) {
                return null;
            }
        }

        private static Object getter(Message<?> message, String name) {
            try {
                Method getter = message.getClass().getMethod(name);
                return getter.invoke(message);
            } catch (ReflectiveOperationException | RuntimeException notThere) {
                return null; // some other connector's message
            }
        }
    }
}
