package dev.outbox.liberty.login;

import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.junit.jupiter.api.Test;

import java.lang.reflect.Proxy;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The interceptor's decisions that need no registry; the registry's part runs on a real server (AdminIT). */
class AdminLoginLockoutTest {

    private final List<String> asked = new ArrayList<>();
    private final AdminLoginLockout.PasswordCheck wrongPassword = (user, password) -> {
        asked.add(user);
        return Optional.empty();
    };
    private final AdminLoginLockout.PasswordCheck rightPassword = (user, password) -> {
        asked.add(user);
        return Optional.of(user);
    };

    @Test
    void everyRequestWithBasicCredentialsIsInterceptedWhateverItsPath() {
        AdminLoginLockout lockout = started(new Properties());
        assertTrue(lockout.isTargetInterceptor(request("/outbox-admin/api/parked", basic("lead:x"))));
        assertTrue(lockout.isTargetInterceptor(request("/health/live", basic("lead:x"))),
                "Liberty checks credentials on unprotected paths too: a guess there must count");
        assertFalse(lockout.isTargetInterceptor(request("/outbox-admin/api/parked", null)),
                "no credentials: Liberty's own challenge");
        assertFalse(lockout.isTargetInterceptor(request("/outbox-admin/api/parked", "Bearer abc")));
        assertTrue(lockout.isTargetInterceptor(request("/api/orders", "Basic %%%")),
                "a malformed Basic header is ours too: Liberty's lenient decoder would check it uncounted");
    }

    @Test
    void aBasicHeaderThatJavaCannotDecodeIsRefusedWithoutAskingTheRegistry() {
        AdminLoginLockout lockout = started(new Properties());
        // "lead:guess-0" with trailing garbage and padding: Liberty's own decoder reads it, Java's strict one does not
        for (String header : List.of("Basic bGVhZDpndWVzcy0wA===", "basic  bGVhZDpndWVzcy0w!", "BASIC", "Basic Og==")) {
            HttpServletRequest request = request("/api/orders", header);
            assertTrue(lockout.isTargetInterceptor(request), header);
            assertEquals(401, lockout.decide(request, response(new HashMap<>()), rightPassword).status(), header);
        }
        assertEquals(List.of(), asked, "no malformed header reaches the registry");
    }

    @Test
    void aBadSettingRefusesEveryLoginInsteadOfOpeningTheDoor() {
        Properties bad = new Properties();
        bad.setProperty("lockout", "five minutes");
        AdminLoginLockout lockout = started(bad);
        HttpServletRequest request = request("/outbox-admin/api/parked", basic("lead:lead-password"));
        assertTrue(lockout.isTargetInterceptor(request), "Basic logins still come here");
        assertEquals(503, lockout.decide(request, response(new HashMap<>()), rightPassword).status(),
                "and are refused, even with a password the registry accepts: no login without the lockout");
        assertEquals(List.of(), asked);
    }

    @Test
    void aLockedNameIsRefusedWithoutAskingTheRegistryAndToldWhenToComeBack() {
        Properties two = new Properties();
        two.setProperty("maxFailures", "2");
        AdminLoginLockout lockout = started(two);
        HttpServletRequest guess = request("/health/live", basic("lead:guess"));
        assertEquals(401, lockout.decide(guess, response(new HashMap<>()), wrongPassword).status());
        assertEquals(401, lockout.decide(guess, response(new HashMap<>()), wrongPassword).status());
        Map<String, String> headers = new HashMap<>();
        AdminLoginLockout.Verdict locked = lockout.decide(request("/outbox-admin/api/parked",
                basic("lead:lead-password")), response(headers), rightPassword);
        assertEquals(401, locked.status(), "the right password of a locked name is refused");
        assertEquals(List.of("lead", "lead"), asked, "the registry is not asked while the name is locked");
        assertEquals("Basic realm=\"outbox\"", headers.get("WWW-Authenticate"));
        assertEquals("300", headers.get("Retry-After"), "the default lock is five minutes");
    }

    @Test
    void aRightPasswordLogsInAsTheRegistrysName() {
        AdminLoginLockout lockout = started(new Properties());
        AdminLoginLockout.Verdict verdict = lockout.decide(request("/outbox-admin/api/parked",
                basic("lead:lead-password")), response(new HashMap<>()), rightPassword);
        assertEquals(new AdminLoginLockout.Verdict(200, "lead"), verdict);
    }

    @Test
    void aRegistryThatDoesNotAnswerCountsNothing() {
        Properties one = new Properties();
        one.setProperty("maxFailures", "1");
        AdminLoginLockout lockout = started(one);
        HttpServletRequest request = request("/outbox-admin/api/parked", basic("lead:lead-password"));
        AdminLoginLockout.PasswordCheck down = (user, password) -> {
            throw new java.rmi.RemoteException("LDAP down");
        };
        assertEquals(503, lockout.decide(request, response(new HashMap<>()), down).status());
        assertEquals(200, lockout.decide(request, response(new HashMap<>()), rightPassword).status(),
                "an outage of the registry is no wrong password");
    }

    @Test
    void anOverlongNameIsRefusedUncheckedAndUntracked() {
        AdminLoginLockout lockout = started(new Properties());
        String name = "o".repeat(AdminLoginLockout.LONGEST_NAME + 1);
        assertEquals(401, lockout.decide(request("/x", basic(name + ":p")), response(new HashMap<>()), rightPassword)
                .status());
        assertEquals(List.of(), asked);
    }

    @Test
    void aGuessersNameIsLoggedPrintableAndShort() {
        assertEquals("'lead'", AdminLoginLockout.printable("lead"));
        assertEquals("'a?b?c?d'", AdminLoginLockout.printable("a\nb\u202ec\u2028d"),
                "control, bidi-override and line-separator characters could forge log lines");
        assertEquals("'" + "o".repeat(64) + "...'", AdminLoginLockout.printable("o".repeat(5_000)));
    }

    private static AdminLoginLockout started(Properties properties) {
        AdminLoginLockout lockout = new AdminLoginLockout();
        assertEquals(0, lockout.initialize(properties), "Liberty loads the interceptor whatever its settings");
        return lockout;
    }

    private static String basic(String userColonPassword) {
        return "Basic " + Base64.getEncoder().encodeToString(userColonPassword.getBytes(StandardCharsets.UTF_8));
    }

    private static HttpServletRequest request(String path, String authorization) {
        return (HttpServletRequest) Proxy.newProxyInstance(AdminLoginLockoutTest.class.getClassLoader(),
                new Class<?>[] {HttpServletRequest.class}, (proxy, method, args) -> switch (method.getName()) {
                    case "getRequestURI" -> path;
                    case "getHeader" -> "Authorization".equalsIgnoreCase((String) args[0]) ? authorization : null;
                    case "getRemoteAddr" -> "127.0.0.1";
                    default -> throw new UnsupportedOperationException(method.getName());
                });
    }

    private static HttpServletResponse response(Map<String, String> headers) {
        return (HttpServletResponse) Proxy.newProxyInstance(AdminLoginLockoutTest.class.getClassLoader(),
                new Class<?>[] {HttpServletResponse.class}, (proxy, method, args) -> {
                    if (method.getName().equals("setHeader")) {
                        headers.put((String) args[0], (String) args[1]);
                        return null;
                    }
                    throw new UnsupportedOperationException(method.getName());
                });
    }
}
