package dev.outbox.it.support;

import jakarta.json.Json;
import jakarta.json.JsonObject;
import jakarta.json.JsonReader;

import java.io.IOException;
import java.io.StringReader;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/** A typed HTTP client for the example's HTTP contract (README): what a user's client would send. */
public final class ExampleService {

    private final URI base;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final HttpClient http1 = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5)).build();

    public ExampleService(String baseUrl) {
        this.base = URI.create(baseUrl.endsWith("/") ? baseUrl : baseUrl + "/");
    }

    public static ExampleService fromSystemProperties() {
        return new ExampleService(Settings.required("it.base.url"));
    }

    /** The response of one call: status and JSON body (an empty object when the body is not JSON). */
    public record Reply(int status, JsonObject body, String raw) {
        public String orderId() {
            return body.getString("orderId");
        }

        public long version() {
            return body.getJsonNumber("version").longValue();
        }

        public String error() {
            return body.containsKey("error") ? body.getString("error") : "";
        }

        @Override
        public String toString() {
            return status + " " + raw;
        }
    }

    public Reply placeOrder(String customerId, BigDecimal amount) {
        return post("api/orders", Json.createObjectBuilder().add("customerId", customerId).add("amount", amount)
                .build().toString(), null);
    }

    public Reply placeOrderRaw(String body, String drill) {
        return post("api/orders", body, drill);
    }

    public Reply pay(String orderId, long expectedVersion) {
        return payRaw(orderId, Json.createObjectBuilder().add("version", expectedVersion).build().toString(), null);
    }

    public Reply payRaw(String orderId, String body, String drill) {
        return post("api/orders/" + orderId + "/pay", body, drill);
    }

    /** Adds a note: one more version of the order and one OrderNoted event. */
    public Reply note(String orderId, String note) {
        return post("api/orders/" + orderId + "/notes", Json.createObjectBuilder().add("note", note).build().toString(),
                null);
    }

    public Reply order(String orderId) {
        return send(HttpRequest.newBuilder(base.resolve("api/orders/" + orderId)).GET());
    }

    /** A MicroProfile Health endpoint: {@code health/ready} or {@code health/live}. */
    public Reply health(String path) {
        return send(HttpRequest.newBuilder(base.resolve(path)).GET());
    }

    /** The application's MicroProfile Metrics in Prometheus text ({@code /metrics?scope=application}). */
    public String metrics() {
        return send(HttpRequest.newBuilder(base.resolve("metrics?scope=application")).header("Accept", "text/plain")
                .GET()).raw();
    }

    /** Waits until the example answers {@code /api/stats} with 200: its server started and deployed the EAR. */
    public void awaitAnswering(String server, Duration timeout) {
        Eventually.await(timeout, "the example answering on " + server, () -> {
            try {
                return stats().status();
            } catch (RuntimeException e) {
                return -1;
            }
        }, status -> status == 200);
    }

    public Reply stats() {
        return send(HttpRequest.newBuilder(base.resolve("api/stats")).GET());
    }

    /**
     * A call to the admin API ({@code outbox-admin/api/<path>}) as one person, with HTTP Basic; a null user
     * sends no credentials at all.
     */
    public Reply admin(String user, String password, String method, String path, String jsonBody) {
        HttpRequest.Builder request = HttpRequest.newBuilder(base.resolve("outbox-admin/api/" + path))
                .header("Content-Type", "application/json")
                .method(method, jsonBody == null ? HttpRequest.BodyPublishers.noBody()
                        : HttpRequest.BodyPublishers.ofString(jsonBody));
        if (user != null) {
            request.header("Authorization", "Basic " + java.util.Base64.getEncoder().encodeToString(
                    (user + ":" + password).getBytes(java.nio.charset.StandardCharsets.UTF_8)));
        }
        return send(request);
    }

    /**
     * R5.7: the example's operator skips an order's missing versions at a consumer through the admin API
     * ({@code POST gaps/skip}), with a reason.
     */
    public Reply skipGap(String consumer, String orderId, long throughVersion, String reason) {
        return admin("operator", "operator-password", "POST", "gaps/skip", jakarta.json.Json.createObjectBuilder()
                .add("consumer", consumer).add("aggregateType", "Order").add("aggregateId", orderId)
                .add("throughVersion", throughVersion).add("reason", reason).build().toString());
    }

    /** An admin call with one header set to a value of the test's choosing (an Accept, a Content-Type). */
    public Reply adminWithHeader(String user, String password, String method, String path, String header, String value) {
        HttpRequest.Builder request = HttpRequest.newBuilder(base.resolve("outbox-admin/api/" + path))
                .header("Content-Type", "application/json")
                .method(method, HttpRequest.BodyPublishers.ofString("{}"))
                .header("Authorization", "Basic " + java.util.Base64.getEncoder().encodeToString(
                        (user + ":" + password).getBytes(java.nio.charset.StandardCharsets.UTF_8)));
        request.setHeader(header, value);
        return send(request);
    }

    /** The example's in-server benchmark load ({@code example.benchmark=true}): a POST that may run for minutes. */
    public Reply benchmark(String pathAndQuery, Duration timeout) {
        return send(HttpRequest.newBuilder(base.resolve("api/benchmark/" + pathAndQuery))
                .POST(HttpRequest.BodyPublishers.noBody()), timeout);
    }

    private Reply post(String path, String body, String drill) {
        HttpRequest.Builder request = HttpRequest.newBuilder(base.resolve(path))
                .header("Content-Type", "application/json")
                .POST(body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
        if (drill != null) {
            request.header("X-Fault-Drill", drill);
        }
        return send(request);
    }

    /**
     * One request exactly as given (no Content-Type unless in {@code headers}; a Basic login when {@code user} is
     * set), answered with its headers: for what the browser sees. HTTP/1.1 with a timeout, since the JDK client's
     * h2c upgrade of a GET for one of Liberty's static files got no answer at all.
     */
    public HttpResponse<String> exchange(String method, String path, String user, String password,
                                         java.util.Map<String, String> headers, String body) {
        HttpRequest.Builder request = HttpRequest.newBuilder(base.resolve(path)).timeout(Duration.ofSeconds(30))
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody()
                        : HttpRequest.BodyPublishers.ofString(body));
        if (user != null) {
            request.header("Authorization", "Basic " + java.util.Base64.getEncoder().encodeToString(
                    (user + ":" + password).getBytes(java.nio.charset.StandardCharsets.UTF_8)));
        }
        headers.forEach(request::header);
        try {
            return http1.send(request.build(), HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new UncheckedIOException("the example service did not answer at " + base, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private Reply send(HttpRequest.Builder request) {
        return send(request, Duration.ofSeconds(30));
    }

    private Reply send(HttpRequest.Builder request, Duration timeout) {
        try {
            HttpResponse<String> response = http.send(request.timeout(timeout).build(),
                    HttpResponse.BodyHandlers.ofString());
            return new Reply(response.statusCode(), json(response.body()), response.body());
        } catch (IOException e) {
            throw new UncheckedIOException("the example service did not answer at " + base, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private static JsonObject json(String body) {
        if (body == null || !body.strip().startsWith("{")) {
            return JsonObject.EMPTY_JSON_OBJECT;
        }
        try (JsonReader reader = Json.createReader(new StringReader(body))) {
            return reader.readObject();
        }
    }
}
