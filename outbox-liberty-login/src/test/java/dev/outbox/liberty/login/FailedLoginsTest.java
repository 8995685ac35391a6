package dev.outbox.liberty.login;

import dev.outbox.liberty.login.FailedLogins.Attempt;
import dev.outbox.liberty.login.FailedLogins.Locked;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

class FailedLoginsTest {

    private final AtomicLong now = new AtomicLong(1_000_000_000L);
    private final LockoutPolicy policy = new LockoutPolicy(3, Duration.ofMinutes(5));
    private final FailedLogins logins = new FailedLogins(policy, now::get, 100);

    /** An attempt whose password was wrong: begun and never taken back. */
    private boolean wrong(String user) {
        return assertInstanceOf(Attempt.class, logins.begin(user), user + " may still try").locks();
    }

    @Test
    void theWrongPasswordThatReachesTheLimitLocksTheNameForTheLockoutPeriod() {
        assertFalse(wrong("lead"));
        assertFalse(wrong("lead"));
        assertEquals(Optional.empty(), logins.lockedFor("lead"), "two wrong passwords of three allowed lock nothing");
        assertTrue(wrong("lead"), "the third wrong password locks the name");
        assertEquals(new Locked(Duration.ofMinutes(5)), logins.begin("lead"), "refused, right password or not");
        now.addAndGet(Duration.ofMinutes(4).toNanos());
        assertEquals(new Locked(Duration.ofMinutes(1)), logins.begin("lead"), "still locked a minute before the end");
        now.addAndGet(Duration.ofMinutes(1).toNanos());
        assertFalse(wrong("lead"), "the lock lifts by itself and the name starts afresh");
    }

    @Test
    void parallelGuessesCountBeforeTheRegistryAnswers() {
        logins.begin("lead");
        logins.begin("lead");
        logins.begin("lead");
        assertInstanceOf(Locked.class, logins.begin("lead"), "a fourth guess sent while three are being checked");
    }

    @Test
    void aRightPasswordTakesBackItsOwnAttemptButNotEarlierWrongOnes() {
        wrong("lead");
        wrong("lead");
        logins.right((Attempt) logins.begin("lead"));
        assertTrue(wrong("lead"), "a colleague's login between the guesses gives the guesser no fresh tries");
    }

    @Test
    void aRightPasswordAsTheLastAllowedAttemptLiftsTheLockItSet() {
        wrong("lead");
        wrong("lead");
        Attempt last = (Attempt) logins.begin("lead");
        assertTrue(last.locks());
        logins.right(last);
        assertEquals(Optional.empty(), logins.lockedFor("lead"), "the right password does not lock its own name");
    }

    @Test
    void oneAccountsNameIsCountedOnceHoweverItIsSpelt() {
        wrong("Lead");
        wrong(" LEAD ");
        assertTrue(wrong("\uff4c\uff45\uff41\uff44"), "full-width letters are the same name to a directory (NFKC)");
        assertTrue(logins.lockedFor("lead").isPresent());
        assertEquals(FailedLogins.key("lead"), FailedLogins.key("le\u00ADad\u200B"), "invisible format characters");
        assertEquals(FailedLogins.key("strasse"), FailedLogins.key("STRA\u00DFE"), "sharp s folds to ss");
    }

    @Test
    void otherNamesAreNotLockedByOneNamesFailures() {
        for (int i = 0; i < 5; i++) {
            logins.begin("lead");
        }
        assertInstanceOf(Attempt.class, logins.begin("operator"));
    }

    @Test
    void wrongPasswordsOlderThanOneLockoutPeriodAreForgotten() {
        wrong("lead");
        wrong("lead");
        now.addAndGet(Duration.ofMinutes(6).toNanos());
        assertFalse(wrong("lead"), "two typos six minutes ago and one now are not three in a row");
        assertFalse(wrong("lead"));
        assertTrue(wrong("lead"));
    }

    @Test
    void guessingAcrossInventedNamesNeitherGrowsTheTableNorFreesALockedName() {
        for (int i = 0; i < 3; i++) {
            wrong("lead");
        }
        for (int i = 0; i < 1_000; i++) {
            logins.begin("nobody-" + i);
        }
        assertEquals(100, logins.tracked(), "no more names than the capacity are kept");
        assertTrue(logins.lockedFor("lead").isPresent(), "names that are not locked are forgotten first");
    }

    @Test
    void namesThatCarryNothingAreForgottenBeforeANameWithWrongPasswords() {
        wrong("lead");
        wrong("lead");
        for (int i = 0; i < 1_000; i++) {
            Attempt idle = (Attempt) logins.begin("colleague-" + i);
            logins.right(idle); // logged in: carries nothing
        }
        assertTrue(wrong("lead"), "lead's two wrong passwords still count: the third locks it");
        assertEquals(0, logins.forgot(), "only names without a count were forgotten");
    }

    @Test
    void pushingACountedNameOutTakesAWholeTableOfInventedNamesAndIsReported() {
        wrong("lead");
        wrong("lead");
        for (int i = 0; i < 99; i++) {
            logins.begin("nobody-" + i);
        }
        assertTrue(logins.tracked() == 100 && logins.forgot() == 0, "99 invented names fit beside lead");
        logins.begin("nobody-99");
        assertFalse(wrong("lead"), "the 100th invented name pushed lead out: its count starts afresh");
        assertTrue(logins.forgot() >= 2, "and forgetting counted names is reported: " + logins.forgot());
    }

    @Test
    void whenEveryNameIsLockedANewNameIsStillCounted() {
        FailedLogins small = new FailedLogins(new LockoutPolicy(1, Duration.ofMinutes(5)), now::get, 2);
        small.begin("a");
        small.begin("b");
        assertTrue(((Attempt) small.begin("c")).locks(), "the new name is tracked, the eldest lock goes");
        assertInstanceOf(Locked.class, small.begin("c"));
        assertEquals(2, small.tracked());
    }

    @Test
    void aLockThatHasRunOutNoLongerHoldsItsPlace() {
        FailedLogins small = new FailedLogins(new LockoutPolicy(1, Duration.ofMinutes(5)), now::get, 2);
        assertTrue(((Attempt) small.begin("a")).locks());
        now.addAndGet(Duration.ofMinutes(5).toNanos() + 1);
        assertTrue(((Attempt) small.begin("b")).locks());
        assertTrue(((Attempt) small.begin("c")).locks(), "room is made");
        assertInstanceOf(Locked.class, small.begin("b"), "b's live lock stayed; a's, run out, was forgotten");
    }
}
