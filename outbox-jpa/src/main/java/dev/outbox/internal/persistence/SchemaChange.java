package dev.outbox.internal.persistence;

import dev.outbox.internal.config.Settings;
import dev.outbox.internal.failure.Causes;
import dev.outbox.internal.logging.CoreMessages;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.logging.Logger;

/**
 * One schema script applied at start where other servers keep writing (R8.4, a rolling upgrade): its statements wait
 * for a table lock at most {@code outbox.schema.lock-wait-ms} at a time. An {@code ALTER TABLE} queued behind an
 * open transaction on its table would hold every later insert and claim behind itself for as long as that
 * transaction lasts; bounded, it gives up, the writes queued behind it go on, and it tries again after a pause (the
 * scripts are idempotent), until {@code outbox.schema.lock-budget} is spent and the start is refused, naming the
 * script.
 */
public final class SchemaChange {

    private static final Logger LOG = Logger.getLogger(SchemaChange.class.getName());
    /** The longest pause between tries: long enough for the queued writes to drain, short enough to catch a gap. */
    private static final Duration LONGEST_PAUSE = Duration.ofSeconds(5);

    /** How the pause between tries is waited out (a test's clock need not sleep). */
    @FunctionalInterface
    public interface Pause {
        void sleep(long millis) throws InterruptedException;
    }

    private final Dialect dialect;
    private final Duration lockWait;
    private final Duration budget;
    private final Pause pause;

    public SchemaChange(Dialect dialect, Duration lockWait, Duration budget, Pause pause) {
        this.dialect = dialect;
        this.lockWait = lockWait;
        this.budget = budget;
        this.pause = pause;
    }

    /**
     * Runs the script on the connection (auto-commit, outside any transaction), going on from the statement a lock
     * wait ended (on PostgreSQL a statement already run would take its table lock again); any other failure ends it
     * at once.
     *
     * @throws IllegalStateException naming the script and both settings once the budget is spent
     */
    public void apply(Connection connection, SqlScript script) throws SQLException {
        long started = System.nanoTime();
        int next = 0;
        for (int attempt = 1; ; attempt++) {
            long tried = System.nanoTime();
            SQLException failure = null;
            dialect.limitSchemaLockWait(connection, lockWait);
            try {
                next = script.runFrom(connection, next);
            } catch (SqlScript.Failed e) {
                failure = e;
                next = e.statement();
            } catch (SQLException e) {
                failure = e;
            } finally {
                failure = reset(connection, failure);
            }
            if (failure == null) {
                return;
            }
            if (!Causes.isLockWaitTimeout(failure)) {
                throw failure;
            }
            long waited = (System.nanoTime() - tried) / 1_000_000; // MariaDB waits whole seconds
            long spent = (System.nanoTime() - started) / 1_000_000;
            long pauseMs = Math.min(LONGEST_PAUSE.toMillis(), lockWait.toMillis() * attempt);
            if (spent + pauseMs + waited > budget.toMillis()) { // the next try would end past the budget
                throw new IllegalStateException("schema script " + script.resource() + " gave up waiting for a table"
                        + " lock an open transaction holds " + attempt + " times in " + spent + " ms ("
                        + Settings.SCHEMA_LOCK_BUDGET + "=" + budget + ", each wait " + Settings.SCHEMA_LOCK_WAIT
                        + "): find the transaction that keeps an outbox table open (runbook: upgrade and rollback"
                        + " across a schema version), end it, and start again", failure);
            }
            int tries = attempt;
            CoreMessages.SCHEMA_LOCK_BUSY.log(LOG, () -> "outbox schema script " + script.resource()
                    + " gave up after waiting " + waited + " ms for a table lock another transaction holds (try "
                    + tries + "), so writes on the table do not queue behind it; trying again in " + pauseMs + " ms");
            try {
                pause.sleep(pauseMs);
            } catch (InterruptedException interrupted) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while schema script " + script.resource()
                        + " waited for a table lock", failure);
            }
        }
    }

    /**
     * Gives the connection its usual lock wait back: a pooled connection must not keep a short one for the business
     * statements it serves next. A failed reset is added to the script's failure, or fails the change on its own.
     */
    private SQLException reset(Connection connection, SQLException failure) {
        try {
            dialect.unlimitSchemaLockWait(connection);
            return failure;
        } catch (SQLException resetFailed) {
            if (failure != null) {
                failure.addSuppressed(resetFailed);
                return failure;
            }
            return new SQLException("cannot reset the lock wait of the connection that applied a schema script",
                    resetFailed);
        }
    }
}
