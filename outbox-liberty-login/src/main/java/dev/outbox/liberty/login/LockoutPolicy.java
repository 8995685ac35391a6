package dev.outbox.liberty.login;

import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.Properties;

/**
 * How many wrong passwords in a row a user name may send to the admin API before it is locked, and for how long.
 * Read from the interceptor's {@code <properties>} in outbox.xml, which take them from server.xml variables; a bad
 * value names its variable.
 *
 * @param maxFailures wrong passwords within one {@code lockout} period that lock the name
 * @param lockout how long a locked name is refused, whatever password it sends
 * @param contextRoot the admin API's context root: the interceptor leaves every other application's logins alone
 */
public record LockoutPolicy(int maxFailures, Duration lockout, String contextRoot) {

    public static final String MAX_FAILURES = "outbox.admin.login.max-failures";
    public static final String LOCKOUT = "outbox.admin.login.lockout";
    public static final String CONTEXT_ROOT = "outbox.admin.context-root";

    public LockoutPolicy {
        if (maxFailures < 1) {
            throw new IllegalArgumentException(MAX_FAILURES + " must be 1 or more, was " + maxFailures);
        }
        if (lockout.isNegative() || lockout.isZero()) {
            throw new IllegalArgumentException(LOCKOUT + " must be longer than zero, was " + lockout);
        }
        if (!contextRoot.startsWith("/") || contextRoot.length() < 2) {
            throw new IllegalArgumentException(CONTEXT_ROOT + " must be a path such as /outbox-admin, was '"
                    + contextRoot + "'");
        }
    }

    /** The interceptor's properties: maxFailures, lockout (ISO-8601, PT5M) and contextRoot. */
    public static LockoutPolicy from(Properties properties) {
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
        return new LockoutPolicy(maxFailures, period, contextRoot(properties));
    }

    /** The context root alone: the interceptor still knows which requests are the admin API's when the rest is bad. */
    static String contextRoot(Properties properties) {
        String root = properties.getProperty("contextRoot", "/outbox-admin").trim();
        return root.endsWith("/") && root.length() > 1 ? root.substring(0, root.length() - 1) : root;
    }
}
