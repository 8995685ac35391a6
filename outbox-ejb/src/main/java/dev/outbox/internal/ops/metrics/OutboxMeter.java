package dev.outbox.internal.ops.metrics;

/**
 * The outbox's meters (R6.1, R6.2), named once for both metrics APIs, so a Prometheus scrape shows the same
 * series on Open Liberty (MicroProfile Metrics) and on WildFly (Micrometer): {@code outbox_pending},
 * {@code outbox_oldest_pending_age_seconds}, {@code outbox_publish_total} and so on.
 */
enum OutboxMeter {
    OLDEST_PENDING_AGE("outbox.oldest.pending.age", "Age of the oldest pending (undelivered) event", "seconds"),
    PENDING("outbox.pending", "Events recorded and not yet delivered", null),
    PARKED("outbox.parked", "Events parked after a deterministic failure, waiting for repair", null),
    FAILING("outbox.failing", "Pending events whose last attempt failed, by error class", null),
    PUBLISHED("outbox.publish", "Send outcomes of this instance's publisher", null),
    RECEIVED("outbox.inbox.received", "Deliveries the inbox decided on, by receipt", null),
    LATENCY("outbox.inbox.latency", "From an event's creation to its first processing by a consumer", "seconds"),
    WAITING("outbox.inbox.waiting", "Records waiting for an inbox consumer at its source (Kafka lag, queue depth)", null),
    GAP_AGE("outbox.inbox.gap.age", "How long the oldest event a consumer holds has waited for the versions before it",
            "seconds"),
    RESEQUENCING("outbox.inbox.resequencing", "Events a consumer holds until the versions before them are applied",
            null),
    CONFLICTS("outbox.inbox.conflicts", "Forks parked at a consumer: another event id for a version it applied", null),
    TOPIC_AT_RISK("outbox.topic.at.risk", "1 while a topic the publisher sends to can lose records a consumer still"
            + " needs (too few replicas, compaction, a retention under the consumers' lag budget), by risk", null);

    /** The {@code event_type} of the series over all types. */
    static final String ALL_TYPES = "*";

    final String meterName;
    final String description;
    /** A base unit, or null for a plain count. */
    final String unit;

    OutboxMeter(String meterName, String description, String unit) {
        this.meterName = meterName;
        this.description = description;
        this.unit = unit;
    }

    /** A tag value: never empty, which Prometheus would drop. */
    static String tagValue(String value) {
        return value == null || value.isEmpty() ? "none" : value;
    }
}
