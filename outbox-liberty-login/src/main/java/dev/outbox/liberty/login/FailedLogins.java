package dev.outbox.liberty.login;

import java.text.Normalizer;
import java.time.Duration;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Optional;
import java.util.function.LongSupplier;
import java.util.regex.Pattern;

/**
 * Wrong passwords per user name within one lockout period, and the names they locked.
 *
 * <p>An attempt counts as wrong from the moment it {@link #begin begins} and is taken back only when the registry
 * says the password was right: parallel guesses cannot slip past the limit while the registry is still checking
 * the first ones. A right password takes back its own attempt only, never earlier wrong ones, so a colleague
 * using the same name does not give a guesser fresh tries. Time is the JVM's monotonic clock: a wall clock set
 * back or forward neither lifts nor stretches a lock. At most {@code capacity} names are kept. When full, a name
 * that carries nothing (no wrong password in its current period, no lock in force) is forgotten first, the least
 * recently used of them; then the least recently used name that is not locked, and a locked one only when every
 * name is locked. A guesser who sends {@code capacity} invented names between two guesses at one name can thus
 * push its count out: thousands of requests per extra guess, which {@link #forgot} reports so it can be logged.
 * Refusing new names instead would let the same flood lock every user who is not in the table out of the server.
 */
final class FailedLogins {

    private static final Pattern SPACES = Pattern.compile("\\s+");
    private static final Pattern FORMAT_CHARACTERS = Pattern.compile("\\p{Cf}");

    private final LockoutPolicy policy;
    private final LongSupplier nanoClock;
    private final int capacity;
    private final LinkedHashMap<String, Attempts> byName = new LinkedHashMap<>(64, 0.75f, true);
    private long forgotWhileCounted;

    /** Attempts counted in the current period, and until when the name is refused. */
    private static final class Attempts {
        int counted;
        long periodStart;
        boolean locked;
        long lockedUntil;

        /** A lock in force at {@code now}, not one that has run out. */
        boolean lockedAt(long now) {
            return locked && lockedUntil - now > 0;
        }
    }

    /** What {@link #begin} decides: the name is locked, or one attempt may go to the registry. */
    sealed interface Admission permits Locked, Attempt {
    }

    /** The name is refused for {@code left} more, whatever password it sent. */
    record Locked(Duration left) implements Admission {
    }

    /** One login attempt under way; {@code locks} when it is the one that locked its name, should it be wrong. */
    record Attempt(String key, boolean locks) implements Admission {
    }

    FailedLogins(LockoutPolicy policy, LongSupplier nanoClock, int capacity) {
        this.policy = policy;
        this.nanoClock = nanoClock;
        this.capacity = capacity;
    }

    /** Locked, or an attempt already counted as wrong, to be taken back with {@link #right} if it was not. */
    synchronized Admission begin(String user) {
        long now = nanoClock.getAsLong();
        String key = key(user);
        Attempts attempts = byName.get(key);
        if (attempts == null) {
            if (byName.size() >= capacity) {
                forgetOne(now);
            }
            attempts = new Attempts();
            byName.put(key, attempts);
        }
        if (attempts.lockedAt(now)) {
            return new Locked(Duration.ofNanos(attempts.lockedUntil - now));
        }
        if (attempts.locked || attempts.counted == 0 || now - attempts.periodStart > policy.lockout().toNanos()) {
            // a lifted lock, or wrong passwords older than one period: a typo a month ago does not count
            attempts.locked = false;
            attempts.counted = 0;
            attempts.periodStart = now;
        }
        attempts.counted++;
        boolean locks = attempts.counted >= policy.maxFailures();
        if (locks) {
            attempts.locked = true;
            attempts.lockedUntil = now + policy.lockout().toNanos();
        }
        return new Attempt(key, locks);
    }

    /** The registry accepted the password, or gave no verdict: the attempt is taken back, and the lock it set. */
    synchronized void right(Attempt attempt) {
        Attempts attempts = byName.get(attempt.key());
        if (attempts == null) {
            return;
        }
        attempts.counted = Math.max(0, attempts.counted - 1);
        if (attempt.locks()) {
            attempts.locked = false;
        }
    }

    /** How long the name is locked now, or empty; for tests and logs. */
    synchronized Optional<Duration> lockedFor(String user) {
        Attempts attempts = byName.get(key(user));
        long left = attempts == null || !attempts.locked ? 0 : attempts.lockedUntil - nanoClock.getAsLong();
        return left > 0 ? Optional.of(Duration.ofNanos(left)) : Optional.empty();
    }

    synchronized int tracked() {
        return byName.size();
    }

    /** Names forgotten while they still carried wrong passwords or a lock: a sign of guessing across names. */
    synchronized long forgot() {
        return forgotWhileCounted;
    }

    /** Makes room: a name that carries nothing, else the eldest unlocked one, else the eldest lock. */
    private void forgetOne(long now) {
        Iterator<Attempts> eldestFirst = byName.values().iterator();
        while (eldestFirst.hasNext()) {
            if (idleFor(eldestFirst.next(), now) == 0) {
                eldestFirst.remove();
                return;
            }
        }
        Iterator<Attempts> unlocked = byName.values().iterator();
        while (unlocked.hasNext()) {
            Attempts attempts = unlocked.next();
            if (!attempts.lockedAt(now)) {
                unlocked.remove();
                forgotWhileCounted++;
                return;
            }
        }
        byName.remove(byName.keySet().iterator().next());
        forgotWhileCounted++;
    }

    /** Nanoseconds until the name carries nothing: no lock in force and no wrong password in the current period. */
    private long idleFor(Attempts attempts, long now) {
        long lockLeft = attempts.locked ? attempts.lockedUntil - now : 0;
        long periodLeft = attempts.counted == 0 ? 0 : attempts.periodStart + policy.lockout().toNanos() - now;
        return Math.max(0, Math.max(lockLeft, periodLeft));
    }

    /**
     * One key per account as a directory would match it: LDAP compares names without regard to case, compatibility
     * forms, invisible format characters or surrounding and repeated spaces, so " Lead" must not get fresh tries.
     */
    static String key(String user) {
        String compatible = Normalizer.normalize(user, Normalizer.Form.NFKC);
        // invisible format characters (soft hyphen, zero-width space and joiners) are dropped, as LDAP's string
        // preparation maps them to nothing (RFC 4518); upper then lower case folds "ß" and "SS" together
        String visible = FORMAT_CHARACTERS.matcher(compatible).replaceAll("");
        return SPACES.matcher(visible.strip()).replaceAll(" ").toUpperCase(Locale.ROOT).toLowerCase(Locale.ROOT);
    }
}
