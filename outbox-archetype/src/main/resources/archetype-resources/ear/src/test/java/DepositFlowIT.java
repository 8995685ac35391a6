package ${package};

import org.junit.jupiter.api.Test;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The service's flow on its running server (mvn verify starts it): deposits are recorded with their events, the
 * publisher sends them through the embedded JMS engine, and the statement consumer applies each one once, in the
 * account's version order.
 */
class DepositFlowIT {

    private static final String SERVICE = System.getProperty("service.url", "http://localhost:9080");
    private static final Pattern LINE = Pattern.compile("\"version\":(\\d+),\"amount\":([0-9.]+)");

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

    @Test
    void eachDepositReachesTheStatementOnceInVersionOrder() throws Exception {
        String account = "acc-" + UUID.randomUUID();
        assertEquals(201, post(account, "{\"amount\": 10.00}").statusCode(), "first deposit");
        assertEquals(201, post(account, "{\"amount\": 2.50}").statusCode(), "second deposit");
        assertEquals(201, post(account, "{\"amount\": 7}").statusCode(), "third deposit");

        String shown = awaitStatementLines(account, 3);
        Matcher line = LINE.matcher(shown);
        StringBuilder lines = new StringBuilder();
        while (line.find()) {
            lines.append(line.group(1)).append('=').append(line.group(2)).append(' ');
        }
        assertEquals("1=10.00 2=2.50 3=7.00 ", lines.toString(), "statement lines (version=amount) in " + shown);
        assertTrue(shown.contains("\"balance\":19.50"), "balance 19.50 in " + shown);

        // Applied once: nothing more arrives after the three (a duplicate would show as a fourth line).
        Thread.sleep(2_000);
        assertEquals(shown, get("/api/accounts/" + account).body(), "the statement changed after all three");
    }

    @Test
    void concurrentDepositsToOneAccountGetVersionsWithoutAHoleAndEachReachesTheStatementOnce() throws Exception {
        String account = "acc-" + UUID.randomUUID();
        int deposits = 12;
        ExecutorService clients = Executors.newFixedThreadPool(6);
        List<Future<HttpResponse<String>>> sent = new ArrayList<>();
        for (int i = 0; i < deposits; i++) {
            sent.add(clients.submit(() -> post(account, "{\"amount\": 1}")));
        }
        int accepted = 0;
        for (Future<HttpResponse<String>> response : sent) {
            int status = response.get().statusCode();
            assertTrue(status == 201 || status == 409, "201, or 409 for a deposit that lost the race to open the"
                    + " account: " + status + " " + response.get().body());
            accepted += status == 201 ? 1 : 0;
        }
        clients.shutdown();
        assertTrue(accepted >= deposits / 2, "most deposits were accepted: " + accepted);

        String shown = awaitStatementLines(account, accepted);
        Matcher line = LINE.matcher(shown);
        List<String> versions = new ArrayList<>();
        while (line.find()) {
            versions.add(line.group(1));
        }
        List<String> expected = new ArrayList<>();
        for (int v = 1; v <= accepted; v++) {
            expected.add(String.valueOf(v));
        }
        assertEquals(expected, versions, "one line per accepted deposit, versions 1 to " + accepted + ": " + shown);
    }

    @Test
    void aDepositWhoseAmountIsNotANumberIsRefused() throws Exception {
        HttpResponse<String> refused = post("acc-" + UUID.randomUUID(), "{\"amount\": \"5\"}");
        assertEquals(400, refused.statusCode(), refused.body());
    }

    @Test
    void aDepositThatIsNotPositiveIsRefusedAndRecordsNothing() throws Exception {
        String account = "acc-" + UUID.randomUUID();
        HttpResponse<String> refused = post(account, "{\"amount\": -5}");
        assertEquals(400, refused.statusCode(), refused.body());
        assertEquals(404, get("/api/accounts/" + account).statusCode(), "an account that was never opened");
    }

    @Test
    void theStatementConsumerIsWatchedByTheLivenessCheck() throws Exception {
        HttpResponse<String> live = get("/health/live");
        assertEquals(200, live.statusCode(), live.body());
        assertTrue(live.body().contains("waiting.statements"), "the watched consumer in " + live.body());
    }

    @Test
    void theOutboxReportsReadyAndItsMetricsWithoutALogin() throws Exception {
        HttpResponse<String> ready = get("/health/ready");
        assertEquals(200, ready.statusCode(), ready.body());
        assertTrue(ready.body().contains("outbox-backlog"), "the outbox's readiness check in " + ready.body());
        HttpResponse<String> metrics = get("/metrics");
        assertEquals(200, metrics.statusCode(), "/metrics without a login");
        assertTrue(metrics.body().contains("outbox_"), "the outbox's metrics");
    }

    private String awaitStatementLines(String account, int lines) throws Exception {
        Instant deadline = Instant.now().plusSeconds(60);
        String shown = "";
        while (Instant.now().isBefore(deadline)) {
            HttpResponse<String> response = get("/api/accounts/" + account);
            shown = response.body();
            if (response.statusCode() == 200 && LINE.matcher(shown).results().count() >= lines) {
                return shown;
            }
            Thread.sleep(200);
        }
        throw new AssertionError("the statement of " + account + " did not reach " + lines + " lines in 60 s: "
                + shown);
    }

    private HttpResponse<String> post(String account, String json) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create(SERVICE + "/api/accounts/" + account + "/deposits"))
                        .header("Content-Type", "application/json")
                        .POST(HttpRequest.BodyPublishers.ofString(json)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private HttpResponse<String> get(String path) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create(SERVICE + path)).GET().build(),
                HttpResponse.BodyHandlers.ofString());
    }
}
