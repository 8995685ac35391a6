package dev.outbox.liberty.login;

import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.Properties;

/**
 * How many wrong passwords a user name may send within one lockout period before it is locked, and for how long.
 * Read from the interceptor's {@code <properties>} in outbox-admin.xml, which take them from server.xml variables; a bad
 * value names its variable.
 *
 * @param maxFailures wrong passwords within one {@code lockout} period that lock the name
 * @param lockout how long a locked name is refused, whatever password it sends, and how long a wrong one counts
 */
record LockoutPolicy(int maxFailures, Duration lockout) {

    static final String MAX_FAILURES = "outbox.admin.login.max-failures";
    static final String LOCKOUT = "outbox.admin.login.lockout";
    private static final int MOST_FAILURES = 1_000;
    private static final Duration LONGEST = Duration.ofDays(1);

    LockoutPolicy {
        if (maxFailures < 1 || maxFailures > MOST_FAILURES) {
            throw new IllegalArgumentException(MAX_FAILURES + " must be 1 to " + MOST_FAILURES + ", was " + maxFailures);
        }
        // A day at most: the counts are nanoseconds, and a lock longer than that is an outage, not a defence
        if (lockout.isNegative() || lockout.isZero() || lockout.compareTo(LONGEST) > 0) {
            throw new IllegalArgumentException(LOCKOUT + " must be longer than zero and at most " + LONGEST + ", was "
                    + lockout);
        }
    }

    /** The interceptor's properties: maxFailures and lockout (ISO-8601, PT5M). */
    static LockoutPolicy from(Properties properties) {
        String failures = properties.getProperty("maxFailures", "5").trim();
        String lockout = properties.getProperty("lockout", "PT5M").trim();
        int maxFailures;
        try {
            maxFailures = Integer.parseInt(failures);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(MAX_FAILURES + " must be a whole number, was '" + failures + "'");
        }
        Duration period;
        try {
            period = Duration.parse(lockout);
        } catch (DateTimeParseException e) {
            throw new IllegalArgumentException(LOCKOUT + " must be an ISO-8601 duration such as PT5M, was '"
                    + lockout + "'");
        }
        return new LockoutPolicy(maxFailures, period);
    }
}
