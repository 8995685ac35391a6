package dev.outbox;

/**
 * {@code OutboxRecorder} was called with no JTA transaction active. Nothing was written: an event recorded
 * outside the business transaction could commit without its business change (R1.2).
 */
public class NoTransactionException extends OutboxException {

    public NoTransactionException() {
        super("OutboxRecorder needs the caller's JTA transaction and none is active: record events inside the "
                + "business transaction (@Transactional, @Outboxed or a container-managed EJB method); "
                + "nothing was written");
    }
}
