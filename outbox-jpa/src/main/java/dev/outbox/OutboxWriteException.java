package dev.outbox;

/** The outbox insert failed for a reason other than a duplicate version; the transaction is rolled back. */
public class OutboxWriteException extends OutboxException {

    public OutboxWriteException(String events, Throwable cause) {
        super("outbox insert failed (" + events + "); the transaction is rolled back", cause);
    }
}
