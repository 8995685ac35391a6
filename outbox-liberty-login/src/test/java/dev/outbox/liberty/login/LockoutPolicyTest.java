package dev.outbox.liberty.login;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Properties;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class LockoutPolicyTest {

    @Test
    void theDefaultsLockAfterFiveWrongPasswordsForFiveMinutesOnTheAdminApi() {
        assertEquals(new LockoutPolicy(5, Duration.ofMinutes(5)), LockoutPolicy.from(new Properties()));
    }

    @Test
    void theServerXmlValuesAreRead() {
        assertEquals(new LockoutPolicy(10, Duration.ofSeconds(30)), LockoutPolicy.from(properties("10", "PT30S")));
    }

    @Test
    void aBadValueNamesItsServerXmlVariable() {
        assertNames("outbox.admin.login.max-failures", properties("five", "PT5M"));
        assertNames("outbox.admin.login.max-failures", properties("0", "PT5M"));
        assertNames("outbox.admin.login.max-failures", properties("1001", "PT5M"));
        assertNames("outbox.admin.login.lockout", properties("5", "5 minutes"));
        assertNames("outbox.admin.login.lockout", properties("5", "PT0S"));
        assertNames("outbox.admin.login.lockout", properties("5", "-PT1M"));
        assertNames("outbox.admin.login.lockout", properties("5", "P999999D"));
    }

    private static void assertNames(String variable, Properties p) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> LockoutPolicy.from(p));
        assertTrue(e.getMessage().startsWith(variable), "the message names " + variable + ": " + e.getMessage());
    }

    private static Properties properties(String maxFailures, String lockout) {
        Properties p = new Properties();
        p.setProperty("maxFailures", maxFailures);
        p.setProperty("lockout", lockout);
        return p;
    }
}
