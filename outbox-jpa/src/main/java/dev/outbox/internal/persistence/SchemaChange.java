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
     * Runs the script on the connection (auto-commit, outside any transaction), trying again while a lock wait ends
     * it; any other failure ends it at once.
     *
     * @throws IllegalStateException naming the script and both settings once the budget is spent
     */
    public void apply(Connection connection, SqlScript script) throws SQLException {
        long waited = 0;
        for (int attempt = 1; ; attempt++) {
            dialect.limitSchemaLockWait(connection, lockWait);
            long started = System.nanoTime();
            try {
                script.run(connection);
                return;
            } catch (SQLException e) {
                if (!Causes.isLockWaitTimeout(e)) {
                    throw e;
                }
                waited += (System.nanoTime() - started) / 1_000_000; // MariaDB waits whole seconds
                long next = Math.min(LONGEST_PAUSE.toMillis(), lockWait.toMillis() * attempt);
                if (waited + next > budget.toMillis()) {
                    throw new IllegalStateException("schema script " + script.resource() + " waited " + attempt
                            + " times " + lockWait.toMillis() + " ms for a table lock an open transaction holds and"
                            + " gave up after " + budget + " (" + Settings.SCHEMA_LOCK_BUDGET + "; each wait "
                            + Settings.SCHEMA_LOCK_WAIT + "): find the transaction that keeps an outbox table open"
                            + " (runbook: a schema change that waits for a lock), end it, and start again", e);
                }
                int tries = attempt;
                CoreMessages.SCHEMA_LOCK_BUSY.log(LOG, () -> "outbox schema script " + script.resource()
                        + " gave up waiting " + lockWait.toMillis() + " ms for a table lock another transaction holds"
                        + " (try " + tries + "), so writes on the table do not queue behind it; trying again in "
                        + next + " ms");
                waited += next;
                try {
                    pause.sleep(next);
                } catch (InterruptedException interrupted) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException("interrupted while schema script " + script.resource()
                            + " waited for a table lock", e);
                }
            } finally {
                dialect.unlimitSchemaLockWait(connection);
            }
        }
    }
}
