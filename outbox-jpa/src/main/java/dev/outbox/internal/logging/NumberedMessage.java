package dev.outbox.internal.logging;

import java.util.function.Supplier;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * A log line an operator may act on: a stable id ({@code OUTBOX-1201}) the runbook and alert rules cite, its level,
 * and the text the call site builds (ids, versions, attempt counts, broker ids; never a payload or a secret, R6.3).
 * One enum of them per module ({@code CoreMessages}, {@code PublisherMessages}, {@code JmsMessages},
 * {@code KafkaMessages}); an id is never reused, not even for a message that was removed.
 */
public interface NumberedMessage {

    /** The stable id, {@code OUTBOX-} and four digits: the module's thousand and the message's number. */
    String id();

    Level level();

    /**
     * Logs {@code id() + " " + text} at the message's level; the text is built only when the level is on. The
     * record's source class is the logger's name (each class logs through a logger named after it), not this
     * interface.
     */
    default void log(Logger logger, Supplier<String> text) {
        if (logger.isLoggable(level())) {
            logger.logp(level(), logger.getName(), null, id() + " " + text.get());
        }
    }

    /** As {@link #log(Logger, Supplier)}, with the exception that caused it (its stack goes to the log too). */
    default void log(Logger logger, Throwable cause, Supplier<String> text) {
        if (logger.isLoggable(level())) {
            logger.logp(level(), logger.getName(), null, id() + " " + text.get(), cause);
        }
    }

    /** The id for a module's message number: {@code OUTBOX-1201} for 1201. */
    static String id(int number) {
        return String.format("OUTBOX-%04d", number);
    }
}
