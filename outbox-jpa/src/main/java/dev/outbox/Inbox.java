package dev.outbox;

import java.util.function.Consumer;

/**
 * The consumer side's idempotency and order (R5.1, R5.7), for consumers of a kind the outbox has no adapter for
 * (the MDB interceptor, {@code KafkaInbox} and {@code ReactiveInbox} use it already). In the caller's active
 * transaction: the event is marked processed and its change runs, both committing or rolling back together
 * (R5.3); a duplicate is absorbed without running the change; a strict event whose earlier versions are missing is
 * stored and its change runs later, in its turn, through the same {@code change}; a fork is parked (R7.7).
 *
 * <p>Inject it ({@code @Inject Inbox inbox}); the outbox's jar provides the one implementation.
 */
public interface Inbox {

    /** What the inbox decided for one delivery. Acknowledge the message after the transaction commits (R5.5). */
    enum Receipt {
        /** First delivery, in its turn (or of an independent type): the change ran, with those that waited for it. */
        FIRST,
        /** Already processed (or already waiting) for this consumer: nothing ran (R5.5). */
        DUPLICATE,
        /** A strict type's earlier versions are missing: stored, to run in its turn (R5.7). Nothing ran yet. */
        WAITING,
        /**
         * Another event id for a version this consumer applied or holds: a fork of the aggregate's history (a
         * restore from backup, R7.7). Parked at the consumer, reported; nothing ran.
         */
        CONFLICT,
        /** A version an operator skipped, arriving after the decision: recorded, reported, nothing ran (R5.7). */
        SKIPPED,
        /**
         * A type the consumer does not receive ({@code outbox.inbox.receives} names others for it): passed over,
         * nothing ran, nothing marked (R5.7).
         */
        NOT_RECEIVED
    }

    /**
     * @param consumer the consumer's name, unique per database ({@code processed_event.consumer})
     * @param change   the business change for an event: called for this one, and later for any that waited for it
     * @throws NoTransactionException outside an active transaction
     */
    default Receipt receive(String consumer, InboxedEvent event, Consumer<InboxedEvent> change) throws Exception {
        return receive(consumer, event, null, change);
    }

    /**
     * For a consumer that receives only some of an aggregate's types ({@code outbox.inbox.receives}, R5.7): pass the
     * message's {@link OutboxHeaders#PREVIOUS_VERSIONS} as it came, so the event waits only for earlier versions of
     * the consumer's own types.
     *
     * @param previousVersions the header's text; null where the message has none (the event then waits for the
     *                         version just before it)
     */
    Receipt receive(String consumer, InboxedEvent event, String previousVersions, Consumer<InboxedEvent> change)
            throws Exception;
}
