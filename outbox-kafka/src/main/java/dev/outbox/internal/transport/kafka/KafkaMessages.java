package dev.outbox.internal.transport.kafka;

import dev.outbox.internal.logging.NumberedMessage;

import java.util.logging.Level;

/**
 * The log lines of outbox-kafka: the Kafka transport and the Kafka and Reactive Messaging inboxes (OUTBOX-4xxx) an operator may act on, each with a stable id the runbook cites.
 * An id is never reused; a removed message leaves its number unused.
 */
public enum KafkaMessages implements NumberedMessage {

    /** The Kafka producer could not be created; events retry. */
    PRODUCER_NOT_CREATED(4001, Level.WARNING),

    /** The Kafka broker did not answer within max.block.ms; the events retry later. */
    BROKER_SILENT(4002, Level.WARNING),

    /** The Kafka producer connected (idempotent, acks=all). INFO. */
    PRODUCER_CONNECTED(4003, Level.INFO),

    /** A Kafka topic has too few replicas or min.insync.replicas: an acknowledged record can die with its leader. */
    TOPIC_NOT_DURABLE(4011, Level.WARNING),

    /** A Kafka topic survives the loss of one broker. INFO. */
    TOPIC_DURABLE(4012, Level.INFO),

    /** The replicas of a Kafka topic could not be checked; make sure it is durable. */
    TOPIC_UNCHECKED(4013, Level.INFO),

    /** A Kafka topic is compacted or keeps records for less than the consumers' lag budget: a consumer behind loses versions. */
    TOPIC_LOSES_VERSIONS(4014, Level.WARNING),

    /** A Kafka consumer reads its topic as its group. INFO. */
    CONSUMER_READS(4101, Level.INFO),

    /** A Reactive Messaging consumer runs on a channel no ReactiveInbox.watch named: its enable.auto.commit is unchecked and liveness does not watch it. */
    CHANNEL_UNWATCHED(4104, Level.WARNING),

    /** A Kafka consumer lost its connection; it reconnects from the last committed offset. */
    CONSUMER_LOST(4102, Level.WARNING),

    /** A Kafka consumer stopped on an error; it restarts from the last committed offset. */
    CONSUMER_STOPPED(4103, Level.SEVERE),

    /** A Reactive Messaging offset could not be committed yet; a later commit or a redelivery covers it. */
    OFFSET_COMMIT_DEFERRED(4111, Level.WARNING),

    /** A Kafka offset commit failed; it goes again after the next poll. */
    OFFSET_COMMIT_FAILED(4112, Level.WARNING),

    /** The group's committed offsets stayed behind the records done with on a quiet topic; committed again. */
    OFFSETS_BEHIND(4113, Level.WARNING),

    /** Offsets are committed again after failures. */
    OFFSETS_COMMITTED_AGAIN(4114, Level.INFO),

    /** The offset commit before a partition was handed over failed; its next reader reads some records again (absorbed). */
    HANDOVER_COMMIT_FAILED(4115, Level.WARNING),

    /** A consumer cannot reach its database; its delivery fails or retries until the database answers. */
    DATABASE_UNREACHABLE(4121, Level.WARNING),

    /** A Kafka consumer failed on an event; it tries again, up to its attempts, then dead-letters it. */
    CONSUMER_FAILED(4122, Level.WARNING),

    /** A Kafka consumer parked an event on its dead-letter topic; repair and re-drive it from there. Runbook: dead letters. */
    DEAD_LETTERED(4123, Level.SEVERE),

    /** A Kafka consumer could not park an event on its dead-letter topic yet; it tries again. */
    DEAD_LETTER_DEFERRED(4124, Level.WARNING);

    private final String id;
    private final Level level;

    KafkaMessages(int number, Level level) {
        this.id = NumberedMessage.id(number);
        this.level = level;
    }

    @Override
    public String id() {
        return id;
    }

    @Override
    public Level level() {
        return level;
    }
}
