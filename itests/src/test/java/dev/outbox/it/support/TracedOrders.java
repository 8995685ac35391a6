package dev.outbox.it.support;

import jakarta.json.Json;

import java.io.StringReader;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Orders placed and paid by a traced client (R6.7): each request carries a {@code traceparent} of a trace of its
 * own, which the server's HTTP span continues. And the spans a server's OpenTelemetry logging exporter wrote to
 * messages.log, one line per ended span: {@code 'name' : <trace id> <span id> KIND [tracer: ...] AttributesMap{...}}.
 */
public final class TracedOrders {

    /** An order, with the trace of the request that placed it and of the one that paid it. */
    public record TracedOrder(String orderId, String placeTrace, String payTrace) {
    }

    private TracedOrders() {
    }

    /** Places an order with {@code note} in its payload and pays it, each request in a new trace. */
    public static TracedOrder placeAndPay(ExampleService service, String customer, String note) {
        String placeTrace = hex(32);
        String payTrace = hex(32);
        HttpResponse<String> placed = service.exchange("POST", "api/orders", null, null, headers(placeTrace),
                Json.createObjectBuilder().add("customerId", customer).add("amount", 3).add("note", note).build()
                        .toString());
        assertEquals(201, placed.statusCode(), placed.body());
        String orderId = Json.createReader(new StringReader(placed.body())).readObject().getString("orderId");
        HttpResponse<String> paid = service.exchange("POST", "api/orders/" + orderId + "/pay", null, null,
                headers(payTrace), "{\"version\":1}");
        assertEquals(200, paid.statusCode(), paid.body());
        return new TracedOrder(orderId, placeTrace, payTrace);
    }

    /** The exported spans of that name in the log that name the event (its id as the outbox.event.id attribute). */
    public static List<String> spans(String log, String name, Object eventId) {
        String attribute = "outbox.event.id=" + eventId;
        return log.lines().filter(l -> l.contains("'" + name + "' : ") && (l.contains(attribute + ",")
                || l.contains(attribute + "}"))).toList();
    }

    /** A server log file as text (WildFly's server.log), where its logging exporter writes the spans. */
    public static String log(java.nio.file.Path file) {
        try {
            return java.nio.file.Files.readString(file, java.nio.charset.StandardCharsets.ISO_8859_1);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException("cannot read the server log " + file, e);
        }
    }

    /** Whether an exported span line is in the given trace. */
    public static boolean inTrace(String span, String traceId) {
        return span.contains("' : " + traceId + " ");
    }

    private static Map<String, String> headers(String traceId) {
        return Map.of("Content-Type", "application/json", "traceparent", "00-" + traceId + "-" + hex(16) + "-01");
    }

    private static String hex(int digits) {
        StringBuilder hex = new StringBuilder();
        while (hex.length() < digits) {
            hex.append(Character.forDigit(ThreadLocalRandom.current().nextInt(16), 16));
        }
        return hex.toString();
    }
}
