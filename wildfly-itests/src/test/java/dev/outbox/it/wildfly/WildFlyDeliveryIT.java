package dev.outbox.it.wildfly;

import dev.outbox.it.flow.DeliveryContract;
import dev.outbox.it.support.ExampleService;
import dev.outbox.it.support.ExampleService.Reply;
import dev.outbox.it.support.MetricsProbe;
import dev.outbox.it.support.MonitoringQueries;
import dev.outbox.it.support.Settings;
import dev.outbox.it.support.TracedOrders;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.shrinkwrap.api.ShrinkWrap;
import org.jboss.shrinkwrap.api.spec.EnterpriseArchive;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.io.File;
import java.util.List;
import java.util.UUID;

import static dev.outbox.it.support.Eventually.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The example EAR, the very file the Liberty suites deploy, on WildFly with its embedded defaults (H2, Artemis):
 * the publisher sends through Artemis, the shipping MDB consumes behind the inbox, and an event sent again
 * after a lost confirm is absorbed ({@link DeliveryContract}); the outbox's health checks and metrics are on
 * WildFly's management endpoints, and the admin API's roles hold.
 */
@ExtendWith(ArquillianExtension.class)
class WildFlyDeliveryIT extends DeliveryContract {

    /** WildFly serves health and metrics on its management interface (9990 + the port offset of 100). */
    private final ExampleService management = new ExampleService("http://127.0.0.1:10090");

    @Deployment(testable = false)
    static EnterpriseArchive exampleEar() {
        return ShrinkWrap.createFromZipFile(EnterpriseArchive.class, new File(Settings.required("it.ear")));
    }

    @Override
    protected String serverLog() {
        return TracedOrders.log(java.nio.file.Path.of(Settings.required("it.server.log")));
    }

    @Test
    void theOutboxReadinessAndLivenessChecksAreReportedAndUp() {
        assertCheck(management.health("health/ready"), "outbox-backlog");
        assertCheck(management.health("health/live"), "outbox-publisher");
    }

    @Test
    void theOutboxMetricsAreScrapedFromMicrometerWithTheSameNamesAsOnLiberty() {
        String orderId = placeAndPay("wildfly-metrics-" + UUID.randomUUID());
        awaitDelivered(orderId, 2);
        await(SOON, "one shipment for " + orderId, () -> shipmentsOf(orderId), n -> n == 1);
        String scrape = await(SOON, "the publisher's and the inbox's counters in a scrape", management::metrics,
                text -> text.contains("outbox_publish_total{") && text.contains("outbox_inbox_received_total{"));
        for (String series : List.of("outbox_oldest_pending_age_seconds{", "outbox_pending{", "outbox_parked{",
                "outbox_inbox_latency_seconds_count{")) {
            assertTrue(scrape.contains(series), "the scrape has " + series + "\n" + scrape);
        }
        assertTrue(scrape.lines().anyMatch(line -> line.startsWith("outbox_publish_total{")
                && line.contains("event_type=\"OrderPaid\"") && line.contains("outcome=\"delivered\"")),
                "OrderPaid counted as delivered:\n" + scrape);
        // Every series the shipped alert rules and dashboard query (monitoring/), once events failed and parked too.
        try (MetricsProbe probe = MetricsProbe.plant(db)) {
            await(SOON, "a scrape with every series monitoring/ queries (the missing ones shown)",
                    () -> MonitoringQueries.missingFrom(management.metrics()), java.util.Set::isEmpty);
        }
    }

    /**
     * Issue 19 item 4: the admin API behind TLS. WildFly's default https-listener (8443, here 8543 with the offset)
     * serves it with the server's applicationSSC context, whose key manager makes a self-signed certificate for
     * localhost on first use; production swaps in its own key store (docs/runbook.md#the-admin-api-over-tls). The
     * test trusts exactly the certificate the server presents, as an operator who pinned it would.
     */
    @Test
    void theAdminApiAnswersOverTlsWithTheServersCertificate() throws Exception {
        javax.net.ssl.SSLContext trustingThisServer = javax.net.ssl.SSLContext.getInstance("TLS");
        trustingThisServer.init(null, new javax.net.ssl.TrustManager[]{new javax.net.ssl.X509TrustManager() {
            public void checkClientTrusted(java.security.cert.X509Certificate[] chain, String type) {
            }

            public void checkServerTrusted(java.security.cert.X509Certificate[] chain, String type)
                    throws java.security.cert.CertificateException {
                if (!chain[0].getSubjectX500Principal().getName().contains("CN=localhost")) {
                    throw new java.security.cert.CertificateException("not the server's certificate: " + chain[0]);
                }
            }

            public java.security.cert.X509Certificate[] getAcceptedIssuers() {
                return new java.security.cert.X509Certificate[0];
            }
        }}, null);
        java.net.http.HttpClient client = java.net.http.HttpClient.newBuilder().sslContext(trustingThisServer).build();
        java.net.URI parked = java.net.URI.create("https://localhost:8543/outbox-admin/api/parked?limit=1");
        java.net.http.HttpResponse<String> anonymous = client.send(java.net.http.HttpRequest.newBuilder(parked).GET()
                .build(), java.net.http.HttpResponse.BodyHandlers.ofString());
        assertEquals(401, anonymous.statusCode(), "over TLS too, no login, no answer");
        java.net.http.HttpResponse<String> operator = client.send(java.net.http.HttpRequest.newBuilder(parked)
                .header("Authorization", "Basic " + java.util.Base64.getEncoder().encodeToString(
                        "operator:operator-password".getBytes(java.nio.charset.StandardCharsets.UTF_8)))
                .GET().build(), java.net.http.HttpResponse.BodyHandlers.ofString());
        assertEquals(200, operator.statusCode(), operator.body());
        assertEquals("https", operator.uri().getScheme());
    }

    @Test
    void theAdminApiLetsEachRoleDoOnlyItsOwnActions() {
        assertEquals(401, service.admin(null, null, "GET", "parked", null).status(), "no login, no answer");
        Reply operator = service.admin("operator", "operator-password", "GET", "parked", null);
        assertEquals(200, operator.status(), operator.toString());
        // Reading an event's body is an operator's action (it may hold personal data): an approver is refused.
        Reply approver = service.admin("approver", "approver-password", "GET", "events/" + UUID.randomUUID(), null);
        assertEquals(403, approver.status(), approver.toString());
    }

    @Test
    void theAdminApiRefusesUnreadableBodiesAndHeadersWithAFourHundredOnWildFlyToo() {
        // The hostile-input campaign's findings (issue 19), on WildFly's RESTEasy: a 400 or 415, never a 500.
        Reply array = service.admin("operator", "operator-password", "POST", "replays", "[]");
        assertEquals(400, array.status(), "a body that is a JSON array: " + array);
        Reply deep = service.admin("operator", "operator-password", "PUT", "parked/" + UUID.randomUUID(),
                "{\"a\":".repeat(2_000));
        assertEquals(400, deep.status(), "a body nested beyond the parser's limit: " + deep);
        Reply preview = service.admin("operator", "operator-password", "POST", "replays",
                "{\"eventIds\":[\"" + UUID.randomUUID() + "\"],\"dryRun\":true}");
        assertEquals(200, preview.status(), "a dry run read from a text body: " + preview);
        assertEquals(400, service.adminWithHeader("operator", "operator-password", "GET", "parked", "Accept",
                "*/*;q=garbage").status(), "an Accept header whose q value is not a number");
        assertEquals(415, service.adminWithHeader("operator", "operator-password", "POST", "replays", "Content-Type",
                "application/json; charset=nonsense").status(), "a charset the server does not know");
    }

    @Test
    void repeatedWrongPasswordsLockTheAccountWhileOtherPeopleStillLogIn() {
        // Issue 19: brute-force logins are stopped. WildFly's Elytron does it by default (WFCORE-7192); "lead" is
        // used by no other WildFly test, so locking it here costs nothing.
        for (int i = 0; i < 15; i++) {
            assertEquals(401, service.admin("lead", "guess-" + i, "GET", "parked", null).status(), "a wrong password");
        }
        assertEquals(401, service.admin("lead", "lead-password", "GET", "parked", null).status(),
                "after 15 wrong passwords in a row the right one is refused too, for a while");
        assertEquals(200, service.admin("operator", "operator-password", "GET", "parked", null).status(),
                "another person is not locked out");
    }

    private static void assertCheck(Reply health, String name) {
        JsonObject check = health.body().getJsonArray("checks").stream().map(JsonValue::asJsonObject)
                .filter(c -> c.getString("name").equals(name)).findFirst()
                .orElseThrow(() -> new AssertionError("no check " + name + " in " + health));
        assertEquals("UP", check.getString("status"), health.toString());
    }
}
