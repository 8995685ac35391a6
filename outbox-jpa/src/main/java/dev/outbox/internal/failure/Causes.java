package dev.outbox.internal.failure;

import java.sql.SQLException;
import java.sql.SQLTransientException;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/** Reads a failure's cause chain: the one place that walks it, for the write side, the inbox and the transports. */
public final class Causes {

    /**
     * H2's own codes for a database that went away (it does not use SQLSTATE class 08): connection broken, object
     * closed, database closed (twice).
     */
    private static final Set<String> H2_CONNECTION_LOST = Set.of("90067", "90007", "90098", "90121");
    /** PostgreSQL's admin and crash shutdowns, and "the database system is starting up" (crash recovery). */
    private static final Set<String> POSTGRESQL_GOING_OR_COMING = Set.of("57P01", "57P02", "57P03");
    private static final int MARIADB_LOCK_WAIT_TIMEOUT = 1205;
    private static final int MARIADB_DUPLICATE_KEY = 1062;

    /**
     * A unique-key violation: SQLSTATE 23505 on H2 and PostgreSQL; on MariaDB the class 23000 with error 1062 (the
     * same class holds CHECK and NOT NULL violations, so the code decides). A failed JDBC batch may carry it only
     * as one of its next exceptions (PostgreSQL's driver does), so those are read too.
     */
    public static boolean isUniqueViolation(Throwable failure) {
        for (SQLException s : sqlExceptions(failure)) {
            if ("23505".equals(s.getSQLState())
                    || ("23000".equals(s.getSQLState()) && s.getErrorCode() == MARIADB_DUPLICATE_KEY)) {
                return true;
            }
        }
        return false;
    }

    /**
     * A statement that gave up waiting for a lock a schema change bounded: PostgreSQL's lock_timeout (55P03),
     * MariaDB's lock_wait_timeout (error 1205). Not H2's own lock timeout: the embedded H2's waits are not bounded.
     */
    public static boolean isLockWaitTimeout(Throwable failure) {
        for (SQLException s : sqlExceptions(failure)) {
            if ("55P03".equals(s.getSQLState()) || s.getErrorCode() == MARIADB_LOCK_WAIT_TIMEOUT) {
                return true;
            }
        }
        return false;
    }

    /** Every SQLException in the cause chain, each followed by its next exceptions (a failed batch's entries). */
    private static List<SQLException> sqlExceptions(Throwable failure) {
        List<SQLException> found = new ArrayList<>();
        for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof SQLException sql) {
                for (SQLException s = sql; s != null; s = s.getNextException() == s ? null : s.getNextException()) {
                    found.add(s);
                }
            }
        }
        return found;
    }

    private Causes() {
    }

    /** The innermost cause (a cause chain that loops ends at the looping one). */
    public static Throwable root(Throwable failure) {
        Throwable root = failure;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        return root;
    }

    /** The first SQLSTATE in the chain (each SQLException's next exceptions included), or null. */
    public static String sqlState(Throwable failure) {
        for (SQLException s : sqlExceptions(failure)) {
            if (s.getSQLState() != null) {
                return s.getSQLState();
            }
        }
        return null;
    }

    /**
     * A database that is away or a transaction the database gave up, not a change that fails: connection errors
     * (SQLSTATE class 08, H2's own codes, PostgreSQL's shutdowns and its "starting up" 57P01 to 57P03), deadlocks and
     * serialization failures.
     * Retrying such a failure is right; parking the event would be wrong.
     */
    public static boolean isDatabaseOutage(Throwable failure) {
        for (Throwable cause = failure; cause != null; cause = cause.getCause() == cause ? null : cause.getCause()) {
            if (cause instanceof SQLTransientException) {
                return true;
            }
            if (cause instanceof SQLException sql && sql.getSQLState() != null) {
                String state = sql.getSQLState();
                if (state.startsWith("08") || state.equals("40001") || state.equals("40P01")
                        || POSTGRESQL_GOING_OR_COMING.contains(state) || H2_CONNECTION_LOST.contains(state)) {
                    return true;
                }
                // MariaDB's lock wait timeout (a rival's uncommitted row held longer than innodb_lock_wait_timeout)
                // comes as HY000 with its own code: the transaction may go again, the event is not at fault.
                if (sql.getErrorCode() == MARIADB_LOCK_WAIT_TIMEOUT && "HY000".equals(state)) {
                    return true;
                }
            }
        }
        return false;
    }
}
