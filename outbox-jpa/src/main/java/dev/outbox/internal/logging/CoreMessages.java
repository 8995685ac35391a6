package dev.outbox.internal.logging;


import java.util.logging.Level;

/**
 * The log lines of outbox-jpa: recording, the confirm, the inbox, settings, schema and tracing (OUTBOX-1xxx) an operator may act on, each with a stable id the runbook cites.
 * An id is never reused; a removed message leaves its number unused.
 */
public enum CoreMessages implements NumberedMessage {

    /** The settings the outbox started with (secrets never shown). INFO, once per start. */
    SETTINGS(1001, Level.INFO),

    /** outbox.schema.create found every schema script applied. INFO. */
    SCHEMA_UP_TO_DATE(1002, Level.INFO),

    /** outbox.schema.create applied one schema script (an upgrade). INFO. */
    SCHEMA_SCRIPT_APPLIED(1003, Level.INFO),

    /**
     * A schema change at start gave up waiting for a table lock an open transaction holds (so the other servers' writes
     * do not queue behind it) and tries again (R8.4). WARNING. Runbook: start-up refusals, schema lock.
     */
    SCHEMA_LOCK_BUSY(1004, Level.WARNING),

    /** Events recorded in a traced span carry its trace context (R6.7). INFO. */
    TRACING_ON(1010, Level.INFO),

    /** The server gives the application no OpenTelemetry API: events carry no trace context. INFO. */
    TRACING_NO_API(1011, Level.INFO),

    /** The server has no OpenTelemetry bean: events carry no trace context. INFO. */
    TRACING_NO_BEAN(1012, Level.INFO),

    /** Setting up OpenTelemetry failed; the outbox runs untraced. Check the server's telemetry feature. */
    TRACING_SETUP_FAILED(1013, Level.WARNING),

    /** The tracer failed once; the outbox goes on without that span and reports no further tracer failure. */
    TRACER_FAILED(1014, Level.WARNING),

    /** An outbox insert failed and the business transaction was marked rollback-only: nothing of it commits. */
    INSERT_FAILED(1101, Level.WARNING),

    /** The after-commit wake-up failed; the next publisher tick delivers (no event is lost). */
    WAKE_UP_FAILED(1102, Level.WARNING),

    /** An event parked after a deterministic failure (R4.5); a strict aggregate waits behind it. Runbook: parked-event repair. */
    PARKED(1201, Level.WARNING),

    /** A send failed transiently or with an unknown outcome; the event is due again after its backoff (R4.4). */
    RETRY(1202, Level.INFO),

    /** A confirm found its lease taken over: the other claimer's result stands; the send was a duplicate the inboxes absorb (R4.3). */
    LEASE_LOST(1203, Level.INFO),

    /** A consumer stopped waiting for missing versions of an advisory-order type after outbox.inbox.advisory-wait-ms. */
    ADVISORY_GAP_SKIPPED(1301, Level.WARNING),

    /** A consumer applied an event that waited, once the versions before it were applied (R5.7). */
    APPLIED_IN_TURN(1302, Level.INFO),

    /** A strict event arrived before an earlier version and is stored until its turn (R5.7). Runbook: a consumer waits. */
    WAITING(1303, Level.INFO),

    /** A fork: an event claims a version the consumer already applied or holds under another id (R7.7). Runbook: forks. */
    CONFLICT(1304, Level.SEVERE),

    /** An event arrived after an operator skipped its version: recorded as processed, not applied. */
    ARRIVED_AFTER_SKIP(1305, Level.WARNING),

    /** A consumer passes over a type that outbox.inbox.receives does not name for it (once per consumer and type). */
    NOT_RECEIVED(1306, Level.INFO),

    /** Advisory gaps were not skipped now (the database did not answer); the next sweep tries again. */
    ADVISORY_SKIP_DEFERRED(1311, Level.WARNING),

    /** Releasing the waiting events of an aggregate failed; the sweep tries again. */
    RELEASE_FAILED(1312, Level.WARNING),

    /** A waiting event failed when its turn came; the versions before it went on, it stays waiting. */
    SUCCESSOR_FAILED(1313, Level.WARNING),

    /** A consumer received an event it had applied and absorbed it (R5.1). */
    DUPLICATE_ABSORBED(1314, Level.INFO),

    /** A consumer's batch rolled back; its events go again one at a time. */
    BATCH_ROLLED_BACK(1315, Level.INFO),

    /** No managed scheduler: waiting events a skip or failure let go are applied with the consumer's next message only. */
    NO_SCHEDULER(1321, Level.WARNING),

    /** The release sweep for waiting events failed; it runs again. */
    SWEEP_FAILED(1322, Level.WARNING),

    /** Two subscriptions share one consumer name; only the last is watched. Give each a name of its own. */
    WATCH_REPLACED(1401, Level.WARNING),

    /** A consumer is watched for stalls (R6.4). INFO. */
    WATCHED(1402, Level.INFO),

    /** A consumer watch listener failed. */
    WATCH_LISTENER_FAILED(1403, Level.WARNING),

    /** Reading a watched consumer's source failed. */
    WATCH_READ_FAILED(1404, Level.WARNING),

    /** A watched consumer's source cannot be read; its stall window is paused until it can. */
    SOURCE_UNREADABLE(1405, Level.WARNING),

    /** A watched consumer's source is readable again. */
    SOURCE_READABLE_AGAIN(1406, Level.INFO),

    /** A consumer has messages waiting and made no attempt for its stall window: liveness names it. Runbook: a consumer stalls. */
    CONSUMER_STALLED(1407, Level.WARNING);

    private final String id;
    private final Level level;

    CoreMessages(int number, Level level) {
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
