package dev.outbox.liberty.login;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.Properties;
import org.junit.jupiter.api.Test;

class LockoutPolicyTest {

    @Test
    void theDefaultsLockAfterFiveWrongPasswordsForFiveMinutesOnTheAdminApi() {
        assertEquals(new LockoutPolicy(5, Duration.ofMinutes(5), "/outbox-admin"), LockoutPolicy.from(new Properties()));
    }

    @Test
    void theServerXmlValuesAreRead() {
        Properties p = properties("10", "PT30S", "/ops/");
        assertEquals(new LockoutPolicy(10, Duration.ofSeconds(30), "/ops"), LockoutPolicy.from(p));
    }

    @Test
    void aBadValueNamesItsServerXmlVariable() {
        assertNames("outbox.admin.login.max-failures", properties("five", "PT5M", "/outbox-admin"));
        assertNames("outbox.admin.login.max-failures", properties("0", "PT5M", "/outbox-admin"));
        assertNames("outbox.admin.login.lockout", properties("5", "5 minutes", "/outbox-admin"));
        assertNames("outbox.admin.login.lockout", properties("5", "PT0S", "/outbox-admin"));
        assertNames("outbox.admin.login.lockout", properties("5", "-PT1M", "/outbox-admin"));
        assertNames("outbox.admin.context-root", properties("5", "PT5M", "outbox-admin"));
    }

    @Test
    void aGuessersNameIsLoggedPrintableAndShort() {
        assertEquals("'lead'", AdminLoginLockout.printable("lead"));
        assertEquals("'a?b'", AdminLoginLockout.printable("a\nb"));
        assertEquals("'" + "o".repeat(64) + "...'", AdminLoginLockout.printable("o".repeat(5_000)));
    }

    private static void assertNames(String variable, Properties p) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> LockoutPolicy.from(p));
        assertTrue(e.getMessage().startsWith(variable), "the message names " + variable + ": " + e.getMessage());
    }

    private static Properties properties(String maxFailures, String lockout, String contextRoot) {
        Properties p = new Properties();
        p.setProperty("maxFailures", maxFailures);
        p.setProperty("lockout", lockout);
        p.setProperty("contextRoot", contextRoot);
        return p;
    }
}
