package dev.outbox;

import java.util.List;

/**
 * Records integration events in the caller's JTA transaction, so the business change and its events commit
 * or roll back together (R1.2). It never opens a transaction of its own: with none active it refuses and
 * writes nothing.
 *
 * <pre>{@code
 * @Inject OutboxRecorder outbox;
 *
 * @Outboxed
 * public void pay(String orderId, long expectedVersion) {
 *     orders.markPaid(orderId, expectedVersion);          // conditional update on the version (R3.1)
 *     outbox.record(OutboxEvent.of("Order", orderId, expectedVersion + 1, "OrderPaid", json));
 * }
 * }</pre>
 *
 * <p>Inside an {@link Outboxed} command the rows are written when the outermost command returns; elsewhere
 * (a plain {@code @Transactional} method or an EJB) they are written at once. Either way the insert is executed
 * before control goes back to business code, so a failure surfaces as an exception there and the transaction
 * is marked rollback-only.
 */
public interface OutboxRecorder {

    /** Records one event; returns its id, made now and never replaced (R2.2). */
    default EventId record(OutboxEvent event) {
        return record(List.of(event)).get(0);
    }

    /**
     * Records the events of one command, in this order. Events of one aggregate must have increasing versions
     * (R3.3), and across commands an aggregate's versions run 1, 2, 3 ... with no hole, or its strictly ordered
     * events wait at the consumers for the missing one ({@link OutboxEvent}, {@code aggregateVersion}). Every event
     * is checked before any is written: one bad event rejects the call and nothing of it is written.
     *
     * @throws NoTransactionException when no JTA transaction is active
     * @throws InvalidEventException when an event breaks a rule; the transaction is marked rollback-only
     * @throws DuplicateEventVersionException when an aggregate's version was recorded before
     * @throws OutboxWriteException when the insert failed otherwise
     */
    List<EventId> record(List<OutboxEvent> events);
}
