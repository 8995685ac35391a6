package dev.outbox.internal.publish;

import dev.outbox.internal.logging.NumberedMessage;

import java.util.logging.Level;

/**
 * The log lines of outbox-ejb: the publisher, cleanup, metrics and the audit trail (OUTBOX-2xxx) an operator may act on, each with a stable id the runbook cites.
 * An id is never reused; a removed message leaves its number unused.
 */
public enum PublisherMessages implements NumberedMessage {

    /** A crash-window failpoint is armed: this JVM halts there. Tests only; never in production. */
    FAILPOINT_ARMED(2001, Level.WARNING),

    /** outbox.publisher.enabled=false: events stay pending on this server. */
    PUBLISHER_DISABLED(2002, Level.INFO),

    /** The publisher started, with its transport, interval, batch size, workers, lease and ordering. */
    PUBLISHER_STARTED(2003, Level.INFO),

    /** A publisher run failed; leases expire and the rows are retried. Runbook: backlog recovery. */
    RUN_FAILED(2004, Level.WARNING),

    /** Shadow mode: the event would have been sent; the old path sends it (R8.3). */
    SHADOW_SEND(2005, Level.INFO),

    /** A batch failed after its claim on a worker's thread; its leases expire and the rows are retried. */
    BATCH_FAILED(2006, Level.WARNING),

    /** outbox.inbox.retention-days is shorter than the redelivery plus recovery windows: a late redelivery could be applied twice. */
    INBOX_RETENTION_SHORT(2101, Level.WARNING),

    /** outbox.cleanup.enabled=false: delivered rows and expired marks are kept. */
    CLEANUP_DISABLED(2102, Level.INFO),

    /** One cleanup run: how many delivered rows, inbox marks, holds and side effects it deleted (R8.1). */
    CLEANUP_DELETED(2103, Level.INFO),

    /** A cleanup run failed; the next run retries. */
    CLEANUP_FAILED(2104, Level.WARNING),

    /** A metrics API is on the class path but the server offers no registry bean: no outbox metrics from it. */
    METRICS_NO_REGISTRY(2201, Level.INFO),

    /** A metrics API is not usable here: no outbox metrics from it. */
    METRICS_API_UNUSABLE(2202, Level.INFO),

    /** The metrics could not read the backlog; the gauges keep their last values. */
    BACKLOG_UNREADABLE(2203, Level.WARNING),

    /** An operator's action through the admin API (repair, resume, replay, skip), with its actor and event (the audit trail). */
    ADMIN_ACTION(2301, Level.INFO);

    private final String id;
    private final Level level;

    PublisherMessages(int number, Level level) {
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
