package dev.outbox.jms;

import jakarta.jms.Queue;

/**
 * Watches an {@link InboxConsumer} MDB for stalls (R6.1): liveness goes DOWN naming the consumer when
 * messages have waited on its queue for {@code outbox.health.consumer-stall} and it finished none, and
 * {@code outbox_inbox_waiting} shows the queue's depth. An MDB has no start of its own to call this from, so a bean
 * of the application does, with the queue the MDB reads:
 *
 * <pre>{@code
 * @Resource(lookup = "java:app/jms/OutboxEvents") Queue queue;
 * void start(@Observes Startup startup) { queueWatch.watch("shipping", queue); }
 * }</pre>
 *
 * <p>The depth is counted with a queue browser through {@code outbox.jms.connection-factory}, up to
 * {@link #COUNT_LIMIT} messages (a deeper queue shows as that many: enough to tell waiting from idle, and a browse
 * every two seconds stays cheap). An MDB with a message selector, or a queue shared with consumers of other
 * messages, must pass its selector: the depth counts only what this consumer would take. Watching also lets the
 * inbox nudge the MDB on this queue from the start (R5.7: events released by a skip while it receives nothing).
 *
 * <p>Inject it ({@code @Inject QueueWatch queueWatch}); the outbox's JMS jar provides the one implementation.
 */
public interface QueueWatch {

    /** The most messages one reading counts. */
    int COUNT_LIMIT = 1_000;

    /**
     * @throws IllegalStateException naming {@code outbox.jms.connection-factory} when it names no connection factory
     */
    default void watch(String consumer, Queue queue) {
        watch(consumer, queue, null);
    }

    /**
     * @param selector the MDB's {@code messageSelector}, or null when it takes every message of the queue
     * @throws IllegalStateException naming {@code outbox.jms.connection-factory} when it names no connection factory
     */
    void watch(String consumer, Queue queue, String selector);
}
