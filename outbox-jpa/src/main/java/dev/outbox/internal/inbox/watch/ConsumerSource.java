package dev.outbox.internal.inbox.watch;

import java.util.Optional;

/**
 * Where an inbox consumer reads from, asked how much is waiting for it: a Kafka consumer group's lag on its topic,
 * the messages on an MDB's queue. Each implementation answers within a few seconds and never throws.
 */
public interface ConsumerSource {

    /**
     * What waits now; empty when the source cannot say (the broker is away), which is never taken for a stalled
     * consumer: the outage shows elsewhere (failing sends, the backlog's age).
     */
    Optional<Reading> read();

    /** What the source is, for the health data and the logs: a topic and group, a queue. Never a credential. */
    String describe();

    /**
     * @param waiting  records or messages waiting for the consumer
     * @param finished a count that grows whenever anybody reading for this consumer finishes records there (a Kafka
     *                 group's committed offsets, summed: another instance of the group counts too), or -1 where the
     *                 source cannot tell
     */
    record Reading(long waiting, long finished) {

        public static Reading waitingOnly(long waiting) {
            return new Reading(waiting, -1);
        }
    }
}
