package dev.outbox.internal.transport;

import jakarta.enterprise.context.ApplicationScoped;

import java.util.Comparator;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * What the publisher found, on its first acknowledged send to each topic, that lets the broker lose records a
 * consumer still needs after it acknowledged them: too few replicas (R4.7), compaction or a retention shorter than
 * the consumers' lag budget (R5.7: a strict consumer would wait for a deleted version forever). The transport that
 * checks a topic logs what it found; readiness ({@code outbox-topics}) and the {@code outbox_topic_at_risk} gauge
 * report it for as long as it holds.
 */
@ApplicationScoped
public class TopicRisks {

    /** How a topic can lose an acknowledged record. */
    public enum Risk {
        /** Fewer than three replicas or {@code min.insync.replicas} under two: a record dies with its leader. */
        UNDER_REPLICATED,
        /** {@code cleanup.policy} compacts: an earlier version is deleted once a later one of its key exists. */
        COMPACTED,
        /** {@code retention.ms} under {@code outbox.kafka.consumer-lag-budget}: a consumer behind loses versions. */
        SHORT_RETENTION
    }

    /** One risk of one topic, with the sentence that explains it (no payload: names and settings only, R6.3). */
    public record Found(String topic, Risk risk, String why) {
    }

    private static final Logger LOG = Logger.getLogger(TopicRisks.class.getName());

    private final Map<String, Map<Risk, String>> byTopic = new ConcurrentHashMap<>();
    private final List<Consumer<Found>> listeners = new CopyOnWriteArrayList<>();

    /** What a check of {@code topic} found, replacing what an earlier check said (none: the topic is safe). */
    public void checked(String topic, Map<Risk, String> risks) {
        Map<Risk, String> now = risks.isEmpty() ? Map.of() : new EnumMap<>(risks);
        Map<Risk, String> before = byTopic.put(topic, now);
        now.forEach((risk, why) -> {
            if (before == null || !before.containsKey(risk)) {
                Found found = new Found(topic, risk, why);
                listeners.forEach(listener -> tell(listener, found));
            }
        });
    }

    /** Whether the last check of {@code topic} found {@code risk}. */
    public boolean holds(String topic, Risk risk) {
        return byTopic.getOrDefault(topic, Map.of()).containsKey(risk);
    }

    /** Every risk the last checks found, by topic and risk. */
    public List<Found> found() {
        return byTopic.entrySet().stream()
                .flatMap(topic -> topic.getValue().entrySet().stream()
                        .map(risk -> new Found(topic.getKey(), risk.getKey(), risk.getValue())))
                .sorted(Comparator.comparing(Found::topic).thenComparing(Found::risk))
                .toList();
    }

    /** Calls {@code listener} for each risk found so far and for each one a later check finds first. */
    public void onFound(Consumer<Found> listener) {
        listeners.add(listener);
        found().forEach(found -> tell(listener, found));
    }

    private static void tell(Consumer<Found> listener, Found found) {
        try {
            listener.accept(found);
        } catch (RuntimeException e) {
            // a metrics listener never stops the check, which logged the risk already
            LOG.log(Level.FINE, e, () -> "a topic risk listener failed for " + found.topic() + " " + found.risk());
        }
    }
}
