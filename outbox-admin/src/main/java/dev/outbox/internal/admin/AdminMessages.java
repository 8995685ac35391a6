package dev.outbox.internal.admin;

import dev.outbox.internal.logging.NumberedMessage;

import java.util.logging.Level;

/**
 * The log lines of outbox-admin: the admin API (OUTBOX-6xxx) an operator may act on, each with a stable id the
 * runbook cites. An id is never reused; a removed message leaves its number unused.
 */
public enum AdminMessages implements NumberedMessage {

    /**
     * The Liberty admin include is there but the login lockout's jar is not: every request of the server is refused
     * (CWWKS1203E) until the jar is put where outbox.admin.login.jar says, or the include is left out.
     */
    LOGIN_JAR_MISSING(6001, Level.SEVERE);

    private final String id;
    private final Level level;

    AdminMessages(int number, Level level) {
        this.id = NumberedMessage.id(number);
        this.level = level;
    }

    @Override
    public String id() {
        return id;
    }

    @Override
    public Level level() {
        return level;
    }
}
