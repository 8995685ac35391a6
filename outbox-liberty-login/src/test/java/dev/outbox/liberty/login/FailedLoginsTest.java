package dev.outbox.liberty.login;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class FailedLoginsTest {

    private final AtomicLong now = new AtomicLong(1_000_000_000L);
    private final LockoutPolicy policy = new LockoutPolicy(3, Duration.ofMinutes(5), "/outbox-admin");
    private final FailedLogins logins = new FailedLogins(policy, now::get, 100);

    @Test
    void theFailureThatReachesTheLimitLocksTheNameForTheLockoutPeriod() {
        assertFalse(logins.failed("lead"));
        assertFalse(logins.failed("lead"));
        assertEquals(Optional.empty(), logins.lockedFor("lead"), "two wrong passwords of three allowed lock nothing");
        assertTrue(logins.failed("lead"), "the third wrong password locks the name");
        assertEquals(Optional.of(Duration.ofMinutes(5)), logins.lockedFor("lead"));
        now.addAndGet(Duration.ofMinutes(4).toNanos());
        assertEquals(Optional.of(Duration.ofMinutes(1)), logins.lockedFor("lead"), "still locked a minute before the end");
        now.addAndGet(Duration.ofMinutes(1).toNanos());
        assertEquals(Optional.empty(), logins.lockedFor("lead"), "the lock lifts by itself");
        assertFalse(logins.failed("lead"), "after the lock the name starts afresh");
    }

    @Test
    void aLockedNameIsLockedWhateverCaseItIsWrittenIn() {
        logins.failed("Lead");
        logins.failed("LEAD");
        logins.failed("lead");
        assertTrue(logins.lockedFor("lEaD").isPresent(), "LDAP matches names without case: so does the count");
    }

    @Test
    void otherNamesAreNotLockedByOneNamesFailures() {
        for (int i = 0; i < 5; i++) {
            logins.failed("lead");
        }
        assertEquals(Optional.empty(), logins.lockedFor("operator"));
    }

    @Test
    void theRightPasswordForgetsEarlierWrongOnes() {
        logins.failed("lead");
        logins.failed("lead");
        logins.succeeded("lead");
        assertFalse(logins.failed("lead"), "a success starts the count again");
        assertFalse(logins.failed("lead"));
        assertTrue(logins.failed("lead"));
    }

    @Test
    void wrongPasswordsOlderThanOneLockoutPeriodAreForgotten() {
        logins.failed("lead");
        logins.failed("lead");
        now.addAndGet(Duration.ofMinutes(6).toNanos());
        assertFalse(logins.failed("lead"), "two typos six minutes ago and one now are not three in a row");
        assertFalse(logins.failed("lead"));
        assertTrue(logins.failed("lead"));
    }

    @Test
    void guessingAcrossInventedNamesKeepsTheTableBounded() {
        for (int i = 0; i < 1_000; i++) {
            logins.failed("nobody-" + i);
        }
        assertEquals(100, logins.tracked(), "no more names than the capacity are kept");
        assertTrue(logins.lockedFor("nobody-999").isEmpty() && logins.tracked() == 100);
    }
}
