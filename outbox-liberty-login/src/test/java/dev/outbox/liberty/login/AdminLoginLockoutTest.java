package dev.outbox.liberty.login;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.lang.reflect.Proxy;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import org.junit.jupiter.api.Test;

/** The interceptor's decisions that need no registry; the registry's part runs on a real server (AdminIT). */
class AdminLoginLockoutTest {

    private static final String LEAD = "Basic " + Base64.getEncoder().encodeToString(
            "lead:lead-password".getBytes(StandardCharsets.UTF_8));

    @Test
    void onlyTheAdminApisRequestsWithBasicCredentialsAreIntercepted() {
        AdminLoginLockout lockout = new AdminLoginLockout();
        lockout.initialize(new Properties());
        assertTrue(lockout.isTargetInterceptor(request("/outbox-admin/api/parked", LEAD)));
        assertFalse(lockout.isTargetInterceptor(request("/outbox-admin/api/parked", null)),
                "no credentials: Liberty's own challenge");
        assertFalse(lockout.isTargetInterceptor(request("/outbox-administration/x", LEAD)), "another application");
        assertFalse(lockout.isTargetInterceptor(request("/api/orders", LEAD)), "the service's own API");
    }

    @Test
    void aBadSettingRefusesEveryAdminLoginInsteadOfOpeningTheDoor() throws Exception {
        AdminLoginLockout lockout = new AdminLoginLockout();
        Properties bad = new Properties();
        bad.setProperty("lockout", "five minutes");
        assertEquals(0, lockout.initialize(bad), "Liberty loads the interceptor all the same");
        HttpServletRequest request = request("/outbox-admin/api/parked", LEAD);
        assertTrue(lockout.isTargetInterceptor(request), "the admin API's logins still come here");
        assertEquals(503, lockout.decide(request, response(new HashMap<>()), (user, password) -> Optional.of(user)).status(),
                "and are refused, even with a password the registry accepts: no login without the lockout");
    }

    @Test
    void aLockedNameIsRefusedWithoutAskingTheRegistryAndToldWhenToComeBack() {
        Properties fast = new Properties();
        fast.setProperty("maxFailures", "2");
        AdminLoginLockout lockout = new AdminLoginLockout();
        lockout.initialize(fast);
        HttpServletRequest request = request("/outbox-admin/api/parked", LEAD);
        List<String> asked = new ArrayList<>();
        AdminLoginLockout.PasswordCheck wrong = (user, password) -> {
            asked.add(user);
            return Optional.empty();
        };
        assertEquals(401, lockout.decide(request, response(new HashMap<>()), wrong).status());
        assertEquals(401, lockout.decide(request, response(new HashMap<>()), wrong).status());
        Map<String, String> headers = new HashMap<>();
        AdminLoginLockout.Verdict locked = lockout.decide(request, response(headers), (user, password) -> {
            asked.add(user);
            return Optional.of(user);
        });
        assertEquals(401, locked.status(), "the right password of a locked name is refused");
        assertEquals(List.of("lead", "lead"), asked, "the registry is not asked while the name is locked");
        assertEquals("Basic realm=\"outbox\"", headers.get("WWW-Authenticate"));
        assertEquals("300", headers.get("Retry-After"), "the default lock is five minutes");
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
