package dev.outbox.it.support;

import jakarta.json.JsonObject;
import jakarta.json.JsonValue;

import java.time.Duration;
import java.util.function.BooleanSupplier;

import static dev.outbox.it.support.Eventually.await;

/**
 * The {@code outbox-consumers} liveness check as a test reads it (issue 19 item 3): per consumer what waits for it
 * ({@code waiting.<consumer>}, -1 when its source could not be read) and whether it is named stalled.
 */
public record ConsumerHealth(int status, JsonObject data, String raw) {

    /** Reads {@code health/live} from {@code endpoint} (the application's port on Liberty, management on WildFly). */
    public static ConsumerHealth read(ExampleService endpoint) {
        ExampleService.Reply reply = endpoint.health("health/live");
        JsonObject data = JsonValue.EMPTY_JSON_OBJECT;
        if (reply.body() != null && reply.body().containsKey("checks")) {
            for (JsonValue check : reply.body().getJsonArray("checks")) {
                JsonObject found = check.asJsonObject();
                if ("outbox-consumers".equals(found.getString("name")) && found.containsKey("data")) {
                    data = found.getJsonObject("data");
                }
            }
        }
        return new ConsumerHealth(reply.status(), data, reply.raw());
    }

    public boolean stalled(String consumer) {
        return data.containsKey("stalled." + consumer);
    }

    /** What waits for the consumer; -1 when its source could not say, {@link Long#MIN_VALUE} when it is not watched. */
    public long waiting(String consumer) {
        String key = "waiting." + consumer;
        return data.containsKey(key) ? data.getJsonNumber(key).longValue() : Long.MIN_VALUE;
    }

    /** What happened to a consumer after an outage, and how long it took to tell. */
    public record Outcome(boolean resumed, Duration after, ConsumerHealth health) {
        @Override
        public String toString() {
            return (resumed ? "resumed" : "named stalled by liveness (503)") + " after " + after.toMillis() + " ms";
        }
    }

    /**
     * Issue 19 item 3's promise, for one consumer after a broker outage: within {@code bound} it either resumes (its
     * effects are in, nothing waits for it, it is not stalled) or liveness is DOWN naming it. Anything else (still
     * behind, health UP) is the silent stop the check exists to prevent, and fails the test.
     */
    public static Outcome resumesOrIsNamedStalled(ExampleService endpoint, String consumer, BooleanSupplier caughtUp,
                                                  Duration bound) {
        long start = System.nanoTime();
        Seen last = await(bound, consumer + " resumed, or liveness DOWN naming it stalled",
                () -> new Seen(read(endpoint), caughtUp.getAsBoolean()), seen -> seen.settles(consumer));
        return new Outcome(!last.health().stalled(consumer), Duration.ofNanos(System.nanoTime() - start), last.health());
    }

    private record Seen(ConsumerHealth health, boolean caughtUp) {
        boolean settles(String consumer) {
            boolean resumed = caughtUp && health.waiting(consumer) == 0 && !health.stalled(consumer);
            boolean named = health.status() == 503 && health.stalled(consumer);
            return resumed || named;
        }

        @Override
        public String toString() {
            return "effects in: " + caughtUp + ", liveness " + health.status() + " " + health.raw();
        }
    }
}
