package dev.outbox.internal.transport.jms;

import dev.outbox.internal.logging.NumberedMessage;

import java.util.logging.Level;

/**
 * The log lines of outbox-jms-bridge: the JMS transport and the MDB inbox (OUTBOX-3xxx) an operator may act on, each with a stable id the runbook cites.
 * An id is never reused; a removed message leaves its number unused.
 */
public enum JmsMessages implements NumberedMessage {

    /** A JMS send failed for a batch; its events retry. */
    SEND_FAILED(3001, Level.WARNING),

    /** No JMS destination at the configured name; the events back off until the server config is repaired. */
    NO_DESTINATION(3002, Level.WARNING),

    /** The publisher sends through a connection factory whose persistent messages may be lost (allowed by setting). */
    PERSISTENCE_NOT_ASSURED(3003, Level.WARNING),

    /** The connection factory does not say how it keeps persistent messages: what to keep on the broker. */
    PERSISTENCE_UNKNOWN(3004, Level.INFO),

    /** The publisher's connection factory, bound after its start, may lose acknowledged messages: nothing is sent through it until it is fixed. */
    PERSISTENCE_REFUSED(3005, Level.SEVERE),

    /** An MDB got a message without the event id header: acknowledged without processing (not an outbox message). */
    NO_EVENT_ID(3101, Level.SEVERE),

    /** An MDB got a message with a malformed event id: acknowledged without processing. */
    MALFORMED_EVENT_ID(3102, Level.SEVERE),

    /** A consumer cannot reach its database; its delivery fails or retries until the database answers. */
    DATABASE_UNREACHABLE(3103, Level.WARNING),

    /** An MDB consumer did not answer the requests to apply its waiting events (a selector without the release header?). */
    RELEASE_UNANSWERED(3201, Level.WARNING),

    /** An idle MDB consumer was asked to apply the waiting events whose turn came. */
    RELEASE_ASKED(3202, Level.INFO),

    /** An MDB consumer could not be asked to apply its waiting events now; its next message or the next round does. */
    RELEASE_NOT_ASKED(3203, Level.WARNING),

    /** No JMS connection factory at outbox.jms.connection-factory: idle MDBs apply waiting events with their next message only. */
    NO_CONNECTION_FACTORY(3204, Level.WARNING),

    /** Waiting events a skip released wait for the consumer's first message after this start. */
    WATCH_RELEASE_DEFERRED(3301, Level.WARNING);

    private final String id;
    private final Level level;

    JmsMessages(int number, Level level) {
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
