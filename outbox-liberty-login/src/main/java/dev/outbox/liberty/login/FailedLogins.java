package dev.outbox.liberty.login;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.function.LongSupplier;

/**
 * Wrong passwords per user name, and the names they locked. Time is the JVM's monotonic clock: a wall clock
 * set back or forward neither lifts nor stretches a lock. The map is bounded, so guessing across many invented
 * names cannot fill the heap; the names used least recently are forgotten first.
 */
final class FailedLogins {

    private final LockoutPolicy policy;
    private final LongSupplier nanoClock;
    private final Map<String, Attempts> byName;

    /** Wrong passwords since the first one of the current period, and until when the name is refused. */
    private static final class Attempts {
        int failures;
        long firstFailureAt;
        long lockedUntil;
        boolean locked;
    }

    FailedLogins(LockoutPolicy policy, LongSupplier nanoClock, int capacity) {
        this.policy = policy;
        this.nanoClock = nanoClock;
        this.byName = new LinkedHashMap<>(64, 0.75f, true) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<String, Attempts> eldest) {
                return size() > capacity;
            }
        };
    }

    /** How long the name stays locked, or empty when it may try a password now. */
    synchronized Optional<Duration> lockedFor(String user) {
        Attempts attempts = byName.get(key(user));
        if (attempts == null || !attempts.locked) {
            return Optional.empty();
        }
        long left = attempts.lockedUntil - nanoClock.getAsLong();
        if (left <= 0) {
            byName.remove(key(user));
            return Optional.empty();
        }
        return Optional.of(Duration.ofNanos(left));
    }

    /** Counts a wrong password; true when it is the one that locks the name. */
    synchronized boolean failed(String user) {
        long now = nanoClock.getAsLong();
        Attempts attempts = byName.computeIfAbsent(key(user), k -> new Attempts());
        if (attempts.failures == 0 || now - attempts.firstFailureAt > policy.lockout().toNanos()) {
            // wrong passwords older than one lockout period are forgotten: a typo a month ago does not count
            attempts.failures = 0;
            attempts.firstFailureAt = now;
        }
        attempts.failures++;
        if (attempts.failures >= policy.maxFailures()) {
            attempts.locked = true;
            attempts.lockedUntil = now + policy.lockout().toNanos();
            return true;
        }
        return false;
    }

    /** The right password: the name starts afresh. */
    synchronized void succeeded(String user) {
        byName.remove(key(user));
    }

    synchronized int tracked() {
        return byName.size();
    }

    /** Registries such as LDAP match names without regard to case: "Lead" must not get five more guesses. */
    private static String key(String user) {
        return user.toLowerCase(Locale.ROOT);
    }
}
