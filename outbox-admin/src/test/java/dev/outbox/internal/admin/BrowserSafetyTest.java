package dev.outbox.internal.admin;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class BrowserSafetyTest {

    @Test
    void theConsolesOwnRequestsAndClientsThatAreNotBrowsersPass() {
        assertFalse(BrowserSafety.fromAnotherSite("same-origin", "http://localhost:9080", "localhost:9080"));
        assertFalse(BrowserSafety.fromAnotherSite(null, null, "localhost:9080"), "curl sends neither header");
        assertFalse(BrowserSafety.fromAnotherSite(null, "http://LocalHost:9080", "localhost:9080"),
                "an older browser on this server's page");
        assertFalse(BrowserSafety.fromAnotherSite(null, "https://ops.example:443", "ops.example:443"),
                "the scheme may differ behind a proxy that ends TLS; the host and port may not");
    }

    @Test
    void aChangeStartedByAnotherSitesPageIsRefused() {
        assertTrue(BrowserSafety.fromAnotherSite("cross-site", "https://evil.example", "localhost:9080"));
        assertTrue(BrowserSafety.fromAnotherSite("same-site", "http://other.localhost:9080", "localhost:9080"),
                "another application of the same site is another page too");
        assertTrue(BrowserSafety.fromAnotherSite(null, "https://evil.example", "localhost:9080"));
        assertTrue(BrowserSafety.fromAnotherSite(null, "null", "localhost:9080"), "a sandboxed or file page");
        assertTrue(BrowserSafety.fromAnotherSite(null, "http://localhost:9080", null));
    }
}
