package dev.outbox.internal.config;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.List;

import static dev.outbox.internal.config.Section.CLEANUP;
import static dev.outbox.internal.config.Section.HEALTH_AND_METRICS;
import static dev.outbox.internal.config.Section.INBOX;
import static dev.outbox.internal.config.Section.JMS;
import static dev.outbox.internal.config.Section.KAFKA;
import static dev.outbox.internal.config.Section.ORDERING;
import static dev.outbox.internal.config.Section.PUBLISHER;
import static dev.outbox.internal.config.Section.REPLAY;
import static dev.outbox.internal.config.Section.TESTS_ONLY;
import static dev.outbox.internal.config.Section.WRITE_SIDE;

/**
 * Every setting of the outbox, declared once. Each module reads its settings from here; docs/settings.md lists
 * them from here (SettingsReferenceTest fails the build when the checked-in reference differs), and so are checked
 * the defaults of the Liberty include (outbox.xml) and the WildFly script (outbox.cli).
 */
public final class Settings {

    /** The H2 column limit; bodies above it belong in an immutable resource anyway (R3.5). */
    public static final int PAYLOAD_HARD_LIMIT = 1_000_000;

    // ---- write side and database

    public static final Setting PAYLOAD_MAX_BYTES = Setting.integer("outbox.payload.max-bytes", WRITE_SIDE,
            65_536, 1, PAYLOAD_HARD_LIMIT, "The largest JSON payload an event may carry, in UTF-8 bytes; larger "
                    + "bodies belong in an immutable resource the event refers to (R3.5).");
    public static final Setting SCHEMA_CREATE = Setting.flag("outbox.schema.create", WRITE_SIDE, false,
            "Run the dialect's idempotent schema scripts at start: those after the newest version the schema "
                    + "already has (each version's probe, `Dialect.SCHEMA_PROBES`), none when it is up to date, so a "
                    + "restart takes no table lock. Off by default (then a schema older than this release stops the "
                    + "start, naming the script to apply): production schemas are migrated by your own tool from the "
                    + "same scripts. The example's server turns it on.");
    public static final Setting SCHEMA_LOCK_WAIT = Setting.millis("outbox.schema.lock-wait-ms", WRITE_SIDE, 1_000, 100,
            60_000, "With outbox.schema.create, how long one schema change waits for a table lock before it gives up "
                    + "and tries again (PostgreSQL's lock_timeout; MariaDB's lock_wait_timeout, in whole seconds). An "
                    + "ALTER TABLE queued behind an open transaction holds every later insert and claim on its table "
                    + "behind itself, so in a rolling upgrade the other servers' writes wait at most this long (R8.4). "
                    + "The embedded H2 waits as it always did.");
    public static final Setting SCHEMA_LOCK_BUDGET = Setting.duration("outbox.schema.lock-budget", WRITE_SIDE,
            "PT2M", "With outbox.schema.create, how long the start keeps trying a schema change that meets an open "
                    + "transaction on its table (OUTBOX-1004 at each try) before it refuses to start, naming the "
                    + "script; the runbook says how to find the transaction. Keep it under the server's deployment "
                    + "timeout (WildFly: 300 s).");
    public static final Setting DATASOURCE = Setting.text("outbox.datasource", WRITE_SIDE,
            "java:comp/DefaultDataSource", "The JNDI name of the datasource the outbox's own SQL runs on. It must be "
                    + "the one your business tables live in (one connection per transaction, R1.2), enlisted in JTA "
                    + "transactions (start-up refuses one that is not, R1.1). On WildFly use its global name.");
    public static final Setting TRANSACTION_REGISTRY = Setting.text("outbox.transaction-registry", WRITE_SIDE,
            "java:comp/TransactionSynchronizationRegistry", "The JNDI name of the server's "
                    + "TransactionSynchronizationRegistry, resolved at start. On WildFly its global name "
                    + "java:jboss/TransactionSynchronizationRegistry, which threads without java:comp (the Reactive "
                    + "Messaging connector's) can look up too.");
    public static final Setting DIALECT = Setting.choice("outbox.dialect", WRITE_SIDE, "auto",
            List.of("auto", "h2", "postgresql", "mariadb"), "The SQL dialect; auto picks it from the JDBC driver's product name.");

    // ---- publisher

    public static final Setting PUBLISHER_ENABLED = Setting.flag("outbox.publisher.enabled", PUBLISHER, true,
            "The publisher's timer. False leaves events pending (a shadow deploy, maintenance).");
    public static final Setting PUBLISHER_TRANSPORT = Setting.text("outbox.publisher.transport", PUBLISHER, "jms",
            "The route of every event type: jms, kafka, or both as jms,kafka (sent to each, confirmed when all "
                    + "accepted).").perEventType();
    public static final Setting PUBLISHER_MODE = Setting.choice("outbox.publisher.mode", PUBLISHER, "publish",
            List.of("publish", "shadow"), "publish, or shadow (R8.3): events are recorded and reported, and the old "
                    + "path still sends them. Stamped on each event when it is recorded, so a switch-over never "
                    + "sends one twice; read on every call.").perEventType();
    public static final Setting PUBLISHER_INTERVAL = Setting.millis("outbox.publisher.interval-ms", PUBLISHER, 1000,
            10, 3_600_000, "The timer between runs. A commit wakes the publisher sooner, so this bounds latency only "
                    + "when a wake-up is lost.");
    public static final Setting PUBLISHER_BATCH_SIZE = Setting.integer("outbox.publisher.batch-size", PUBLISHER, 500,
            1, 10_000, "Rows per claim transaction.");
    public static final Setting PUBLISHER_MAX_BATCHES = Setting.integer("outbox.publisher.max-batches-per-run",
            PUBLISHER, 100, 1, 100_000, "Bounds one run, so one server's backlog cannot starve its other timers.");
    public static final Setting PUBLISHER_WORKERS = Setting.integer("outbox.publisher.workers", PUBLISHER, 1, 1, 16,
            "Batches between claim and confirm at once while a backlog lasts: one claimer claims the next batch "
                    + "while the others are sent and confirmed on managed threads, each holding a pooled connection "
                    + "during its claim and its confirm. Strict types keep their order with any number; independent "
                    + "types may then arrive out of version order across batches. With the database, server and "
                    + "broker on the same 2 cores, 2 workers drained at 1.04 to 1.25 of one and 4 at 0.90 to 1.13 of 2 "
                    + "(docs/benchmarks.md).");
    public static final Setting PUBLISHER_LEASE = Setting.millis("outbox.publisher.lease-ms", PUBLISHER, 30_000, 100,
            3_600_000, "How long a claim is exclusive, on the database's clock; a dead claimer's rows are due again "
                    + "after it (R4.3). Start-up refuses a lease no longer than a transport's longest send.");
    public static final Setting BACKOFF_INITIAL = Setting.millis("outbox.publisher.backoff.initial-ms", PUBLISHER,
            500, 1, 3_600_000, "The first retry delay after a transient failure; it doubles per attempt, with "
                    + "jitter.");
    public static final Setting BACKOFF_MAX = Setting.millis("outbox.publisher.backoff.max-ms", PUBLISHER, 300_000,
            1, 86_400_000, "The longest retry delay; at least backoff.initial-ms.");
    public static final Setting CLAIMER_ID = Setting.text("outbox.publisher.claimer-id", PUBLISHER, null,
            "The claimer recorded on the rows this server claims; unique per server, so a restarted server never "
                    + "reuses a dead one's leases.").computedDefault("pid@host/random");
    public static final Setting CLOUD_EVENTS = Setting.flag("outbox.cloudevents.enabled", PUBLISHER, false,
            "Send the events also as CloudEvents 1.0 in binary mode, for consumers that read CloudEvents: ce_ "
                    + "headers on Kafka, cloudEvents_ properties on JMS (id is the event id, type the event type, "
                    + "partitionkey and aggregateversion the aggregate id and version). The outbox's own headers "
                    + "stay, so the inbox reads such messages as before. Set it per event type to opt in one "
                    + "destination's types; opt in every type of a shared topic, or give the types their own topic "
                    + "(a plain CloudEvents consumer refuses the other records). Read per send; checked at start.")
            .perEventType();
    public static final Setting CLOUD_EVENTS_SOURCE = Setting.text("outbox.cloudevents.source", PUBLISHER, "/outbox",
            "The CloudEvents source (a URI reference naming the producing service) of events sent as CloudEvents.");

    // ---- ordering

    public static final Setting ORDERING_DEFAULT = Setting.choice("outbox.ordering.default", ORDERING, "strict",
            List.of("strict", "independent"), "The ordering policy of event types not listed below.");
    public static final Setting ORDERING_INDEPENDENT = Setting.list("outbox.ordering.independent", ORDERING,
            "Event types that are independent when the default is strict.");
    public static final Setting ORDERING_STRICT = Setting.list("outbox.ordering.strict", ORDERING,
            "Event types that are strict when the default is independent.");

    // ---- JMS

    public static final Setting JMS_DESTINATION = Setting.text("outbox.jms.destination", JMS,
            "java:app/jms/OutboxEvents", "The JNDI name of the queue or topic events go to; read per send, so it can "
                    + "be re-pointed at run time.").perEventType();
    public static final Setting JMS_CONNECTION_FACTORY = Setting.text("outbox.jms.connection-factory", JMS,
            "java:comp/DefaultJMSConnectionFactory", "The JNDI name of the connection factory the publisher sends "
                    + "with.");
    public static final Setting JMS_REQUIRE_ASSURED_PERSISTENCE = Setting.flag(
            "outbox.jms.require-assured-persistence", JMS, true, "On Open Liberty the publisher does not start when "
                    + "its connection factory maps persistent messages to anything but AssuredPersistent (the "
                    + "engine may discard an acknowledged message when it fails, R4.7). false only for a "
                    + "measurement, never in production: then it warns (OUTBOX-3003).");
    public static final Setting JMS_MAX_MESSAGE_BYTES = Setting.integer("outbox.jms.max-message-bytes", JMS,
            1_048_576, 1, Integer.MAX_VALUE, "A larger message parks as MessageTooLarge instead of failing the "
                    + "batch.");

    // ---- Kafka

    public static final Setting KAFKA_BOOTSTRAP_SERVERS = Setting.text("outbox.kafka.bootstrap-servers", KAFKA,
            "127.0.0.1:9092", "The Kafka brokers, for the producer (created on the first Kafka send) and "
                    + "KafkaInbox.");
    public static final Setting KAFKA_CLIENT_ID = Setting.text("outbox.kafka.client-id", KAFKA, "outbox-publisher",
            "The producer's client id.");
    public static final Setting KAFKA_TOPIC = Setting.text("outbox.kafka.topic", KAFKA, "outbox.{aggregateType}",
            "The topic, with {aggregateType} and {eventType} placeholders.").perEventType();
    public static final Setting KAFKA_SEND_TIMEOUT = Setting.millis("outbox.kafka.send-timeout-ms", KAFKA, 15_000,
            1_000, 600_000, "How long the producer may try one record (its delivery.timeout.ms); keep it well under "
                    + "the lease.");
    public static final Setting KAFKA_MAX_BLOCK = Setting.millis("outbox.kafka.max-block-ms", KAFKA, 5_000, 0,
            600_000, "How long a send waits for topic metadata when the broker is away; the rest of the batch then "
                    + "waits for the next run.");
    public static final Setting KAFKA_CONSUMER_LAG_BUDGET = Setting.duration("outbox.kafka.consumer-lag-budget", KAFKA,
            "P7D", "The longest an inbox consumer of a topic may fall behind (stopped, stalled, redeploying) and still "
                    + "read every version; the publisher reports a topic whose retention.ms is shorter, or that is "
                    + "compacted (R5.7).");
    public static final Setting KAFKA_PRODUCER = Setting.prefix("outbox.kafka.producer.", KAFKA,
            "Passed to the producer as <property> (security.protocol, sasl.*, ssl.*, linger.ms, compression.type); "
                    + "values are never logged. acks, idempotence, the partitioner, interceptors, serializers and "
                    + "transactional.id cannot be overridden.");
    public static final Setting KAFKA_CONSUMER = Setting.prefix("outbox.kafka.consumer.", KAFKA,
            "Passed to KafkaInbox's consumers as <property> (security settings, max.poll.records); auto-commit is "
                    + "always off.");
    public static final Setting INBOX_MAX_ATTEMPTS = Setting.integer("outbox.inbox.max-attempts", KAFKA, 5, 1, 1000,
            "Kafka consumers: attempts of a failing change before its record is parked on the dead-letter topic.");
    public static final Setting INBOX_BATCH_SIZE = Setting.integer("outbox.inbox.batch-size", KAFKA, 200, 1, 10_000,
            "KafkaInbox: the records of one poll (at most max.poll.records, 200 unless set) are applied in one"
                    + " transaction, this many at most; 1 applies each in its own. A batch that does not commit (a"
                    + " change throws, a waiting event fails in its turn, a statement, the commit or the"
                    + " transaction timeout fails) rolls back whole and its records go again one at a time, so a"
                    + " poison record is parked alone and the others' changes, rolled back, run once more: set 1 for"
                    + " a change with effects outside the transaction. The changes of a batch share one persistence"
                    + " context.");
    public static final Setting INBOX_DEAD_LETTER_TOPIC = Setting.text("outbox.inbox.dead-letter-topic", KAFKA,
            "{topic}.dead-letter", "Where a Kafka consumer parks a record, with a {topic} placeholder.");

    // ---- inbox

    public static final Setting INBOX_RETENTION_DAYS = Setting.integer("outbox.inbox.retention-days", INBOX, 30, 1,
            36_500, "How long processed_event rows are kept: at least the broker's redelivery window plus the "
                    + "disaster-recovery window (R5.6, R9.5).");
    public static final Setting INBOX_GAP_WINDOW = Setting.millis("outbox.inbox.gap-window-ms", INBOX, 2000, 100,
            86_400_000, "How long a strict event may wait at a consumer for the versions before it (stored in the "
                    + "consumer's database, its message acknowledged) before the gap is reported: a SEVERE log line, "
                    + "the consumer's gap metric and alert, the console's waiting list (R5.7). The event keeps waiting "
                    + "after it: only the missing version, by any route, or an operator's audited skip ends a gap (or, "
                    + "for the "
                    + "types outbox.inbox.advisory-order names, the consumer's own skip).");
    public static final Setting INBOX_ADVISORY_ORDER = Setting.list("outbox.inbox.advisory-order", INBOX,
            "Strict event types whose order is only advisory at this server's consumers (none by default): a gap "
                    + "before such an event is skipped by the consumer itself once the event has waited "
                    + "outbox.inbox.advisory-wait-ms, recorded as skipped by 'outbox' with the reason, and the event "
                    + "and those after it are applied. What it costs: a skipped version that comes later is recorded "
                    + "as skipped and its effect is never applied if its type is advisory too; if it is not, it is "
                    + "parked at the consumer as a conflict for an operator (R5.7). Use it only where a later version "
                    + "makes an earlier one's effect redundant.");
    public static final Setting INBOX_RECEIVES = Setting.list("outbox.inbox.receives", INBOX,
            "The event types a consumer receives, where it receives only some of an aggregate's types (a JMS selector, "
                    + "per-type Kafka topics, a consumer that needs only some), as consumer:EventType items, such as "
                    + "'loyalty:OrderPaid, shipping:OrderPaid, shipping:OrderCancelled' (none by default: every consumer "
                    + "receives every type). A strict event waits at such a consumer only for the latest earlier "
                    + "version of the types it receives, read from the message's outboxPreviousVersions header, never "
                    + "for versions it will not receive; a message of another type that reaches it is acknowledged "
                    + "and passed over, its change not called and nothing marked (R5.7). A consumer missing from the "
                    + "list waits for every version before an event: one that does not receive them all stalls at "
                    + "each missing version until an operator skips it.");
    public static final Setting INBOX_ADVISORY_WAIT = Setting.millis("outbox.inbox.advisory-wait-ms", INBOX, 60_000,
            1_000, 86_400_000, "How long an event of an advisory type (outbox.inbox.advisory-order) waits for the "
                    + "versions before it before its consumer skips them: longer than the broker's redelivery delays "
                    + "and the consumers' ordinary reordering, or a version that was only late is lost.");
    public static final Setting INBOX_BROKER_MAX_DELIVERIES = Setting.integer("outbox.inbox.broker-max-deliveries",
            INBOX, 10, 1, 100_000, "How often the broker delivers a message before giving it up (Liberty's queue "
                    + "maxRedeliveryCount, Artemis's max-delivery-attempts: set them from this variable); each failed "
                    + "delivery costs one.");
    public static final Setting INBOX_REDELIVERY_WINDOW = Setting.duration("outbox.inbox.redelivery-window", INBOX,
            "P1D", "The longest time the broker may redeliver a message.");
    public static final Setting INBOX_RECOVERY_WINDOW = Setting.duration("outbox.inbox.recovery-window", INBOX,
            "P7D", "The age of the oldest backup you may restore; a start-up warning names both windows when "
                    + "outbox.inbox.retention-days is shorter than their sum (R5.6, R9.5).");

    // ---- health and metrics

    public static final Setting HEALTH_MAX_PENDING_AGE = Setting.duration("outbox.health.max-pending-age",
            HEALTH_AND_METRICS, "PT5M", "Readiness is DOWN while the oldest pending event is older than this.")
            .perEventType();
    public static final Setting INBOX_CONSUMER_STALL = Setting.duration("outbox.health.consumer-stall",
            HEALTH_AND_METRICS, "PT2M", "Liveness is DOWN, naming the consumer, when records have waited for an inbox "
                    + "consumer this long (its Kafka group's lag, its queue) and it finished none meanwhile.");
    public static final Setting METRICS_REFRESH = Setting.millis("outbox.metrics.refresh-ms", HEALTH_AND_METRICS,
            5000, 0, 3_600_000, "The backlog gauges read the table at most this often.");

    // ---- cleanup

    public static final Setting CLEANUP_ENABLED = Setting.flag("outbox.cleanup.enabled", CLEANUP, true,
            "The cleanup timer.");
    public static final Setting CLEANUP_INTERVAL = Setting.millis("outbox.cleanup.interval-ms", CLEANUP, 60_000, 100,
            86_400_000, "The time between cleanup runs.");
    public static final Setting CLEANUP_DELIVERED_RETENTION = Setting.duration("outbox.cleanup.delivered-retention",
            CLEANUP, "P7D", "Delivered rows are deleted this long after their confirm (redelivery, reconciliation "
                    + "and audit); pending and parked rows never are.");
    public static final Setting CLEANUP_BATCH_SIZE = Setting.integer("outbox.cleanup.batch-size", CLEANUP, 500, 1,
            100_000, "Rows per delete transaction.");
    public static final Setting CLEANUP_MAX_BATCHES = Setting.integer("outbox.cleanup.max-batches-per-run", CLEANUP,
            20, 1, 100_000, "The per-run limit of delete transactions.");

    // ---- replay

    public static final Setting REPLAY_APPROVAL_THRESHOLD = Setting.integer("outbox.replay.approval-threshold",
            REPLAY, 100, 1, 1_000_000, "A replay of more events than this waits for a second, different person "
                    + "with the approver role (R9.4). Bulk resumes count their events, and a parked event resumed "
                    + "alone or its content changed counts as one: above it, they wait for the approver too, who "
                    + "sees a content change as a diff.");
    public static final Setting REPLAY_RATE = Setting.integer("outbox.replay.rate-per-second", REPLAY, 100, 1,
            100_000, "Replayed events come due this many per second, so a big replay never floods the brokers or "
                    + "the consumers (R6.5).");
    public static final Setting REPLAY_MAX_EVENTS = Setting.integer("outbox.replay.max-events", REPLAY, 10_000, 1,
            1_000_000, "The largest replay one request may select; split bigger ones by time range.");
    public static final Setting REPLAY_APPROVAL_WINDOW = Setting.duration("outbox.replay.approval-window", REPLAY,
            "PT24H", "The events one person replayed, resumed or changed without a second approver in this window "
                    + "count with each new request against the threshold, so splitting a big replay, or resuming "
                    + "events one at a time, does not dodge the approval.");

    // ---- tests only

    public static final Setting FAILPOINT = Setting.text("outbox.failpoint", TESTS_ONLY, "none",
            "Halts the JVM at a publisher crash window (R7.2): none, before-claim-commit, after-claim-before-send, "
                    + "after-send-before-confirm, before-confirm-commit or after-confirm.");

    private Settings() {
    }

    /** Every declared setting, in declaration order. */
    public static List<Setting> all() {
        List<Setting> all = new ArrayList<>();
        for (Field field : Settings.class.getDeclaredFields()) {
            if (field.getType() == Setting.class && Modifier.isStatic(field.getModifiers())) {
                try {
                    all.add((Setting) field.get(null));
                } catch (IllegalAccessException e) {
                    throw new IllegalStateException(e);
                }
            }
        }
        return all;
    }
}
