package dev.outbox;

/**
 * An event was refused before anything was written: the message names the field and the rule. The caller's
 * transaction is already marked rollback-only, so the business change cannot commit without its event.
 */
public class InvalidEventException extends OutboxException {

    private final String field;

    public InvalidEventException(String field, String problem, String event) {
        super("outbox event rejected: " + field + " " + problem + " (" + event + ")");
        this.field = field;
    }

    /** The name of the {@code OutboxEvent} component that broke a rule, such as {@code aggregateVersion}. */
    public String field() {
        return field;
    }
}
