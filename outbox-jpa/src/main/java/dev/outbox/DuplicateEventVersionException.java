package dev.outbox;

/**
 * The outbox already holds an event for this aggregate at this version (the unique key on aggregate type, id
 * and version, R3.3): two commands raced for one aggregate version, or one command recorded a version twice.
 * The caller's transaction is marked rollback-only.
 */
public class DuplicateEventVersionException extends OutboxException {

    public DuplicateEventVersionException(String events, Throwable cause) {
        super("outbox event rejected: an event already exists at this aggregate version (" + events
                + "); the transaction is rolled back", cause);
    }
}
