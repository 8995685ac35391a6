package dev.outbox;

/**
 * An {@link Outboxed} command's transaction failed as it ended, with an exception the command itself does not
 * declare: some servers report a commit that met a database halt as their own checked exception (Open Liberty: a
 * heuristic outcome from its unit-of-work manager), which would otherwise escape every exception mapper. Whether it
 * committed is the database's to say: the business change and its events did so together or not at all (R1.1), and
 * {@link DatabaseOutage#isCauseOf} tells an outage (answer 503) from anything else.
 */
public class CommitFailedException extends OutboxException {

    public CommitFailedException(Throwable cause) {
        super("the command's transaction failed as it ended (" + cause.getClass().getName() + "); the business change "
                + "and its events committed together or not at all", cause);
    }
}
