package dev.outbox.liberty.login;

import java.util.function.Supplier;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The log lines of outbox-liberty-login: the admin login lockout (OUTBOX-5xxx) an operator may act on, each with a stable id the runbook cites.
 * An id is never reused; a removed message leaves its number unused.
 * This jar is a Liberty user feature without the outbox core, so it carries the two logging methods itself.
 */
public enum LoginMessages {

    /** The admin login lockout is on, with its limits. INFO. */
    LOCKOUT_ON(5001, Level.INFO),

    /** The admin login lockout did not start: every HTTP Basic login is refused until the setting is fixed. */
    LOCKOUT_NOT_STARTED(5002, Level.SEVERE),

    /** A user name was locked after repeated wrong passwords, with the last address. Runbook: the admin login. */
    NAME_LOCKED(5003, Level.WARNING),

    /** The user registry could not check a password: the login answers 503. */
    REGISTRY_FAILED(5004, Level.WARNING),

    /** The lockout's table of user names is full; names with wrong passwords were forgotten (guessing across invented names?). */
    NAME_TABLE_FULL(5005, Level.WARNING);

    private final String id;
    private final Level level;

    LoginMessages(int number, Level level) {
        this.id = String.format("OUTBOX-%04d", number);
        this.level = level;
    }

    public String id() {
        return id;
    }

    /** Logs {@code id + " " + text} at the message's level; the text is built only when the level is on. */
    public void log(Logger logger, Supplier<String> text) {
        if (logger.isLoggable(level)) {
            logger.logp(level, logger.getName(), null, id + " " + text.get());
        }
    }
}
