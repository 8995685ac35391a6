package dev.outbox.internal.inbox.watch;

import java.util.OptionalLong;

/**
 * Where an inbox consumer reads from, asked how much is waiting for it: a Kafka consumer group's lag on its topic,
 * the messages on an MDB's queue. Each implementation answers within a few seconds and never throws.
 */
public interface ConsumerSource {

    /**
     * Records or messages waiting for the consumer now; empty when the source cannot say (the broker is away), which
     * is never taken for a stalled consumer: the outage shows elsewhere (failing sends, the backlog's age).
     */
    OptionalLong waiting();

    /** What the source is, for the health data and the logs: a topic and group, a queue. Never a credential. */
    String describe();
}
