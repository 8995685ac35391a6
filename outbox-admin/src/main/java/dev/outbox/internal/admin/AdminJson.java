package dev.outbox.internal.admin;

import dev.outbox.internal.ops.AdminRefusal;
import dev.outbox.internal.ops.replay.ContentDiff;
import dev.outbox.internal.ops.replay.ReplayDecision;
import dev.outbox.internal.ops.replay.ReplayPlan;
import dev.outbox.internal.persistence.AuditEntry;
import dev.outbox.internal.persistence.StoredEvent;
import jakarta.json.Json;
import jakarta.json.JsonArrayBuilder;
import jakarta.json.JsonException;
import jakarta.json.JsonNumber;
import jakarta.json.JsonObject;
import jakarta.json.JsonObjectBuilder;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;
import jakarta.json.stream.JsonParser;

import java.io.StringReader;
import java.time.temporal.Temporal;
import java.util.Map;
import java.util.UUID;

/** The admin API's JSON: what goes out, and the few fields read from requests, each named when wrong. */
final class AdminJson {

    private AdminJson() {
    }

    static JsonObject event(StoredEvent event) {
        JsonObjectBuilder json = Json.createObjectBuilder()
                .add("eventId", event.eventId().toString())
                .add("aggregateType", event.aggregateType())
                .add("aggregateId", event.aggregateId())
                .add("aggregateVersion", event.aggregateVersion())
                .add("eventType", event.eventType())
                .add("schemaVersion", event.schemaVersion())
                .add("state", event.state())
                .add("attempts", event.attempts());
        optional(json, "lastErrorClass", event.lastErrorClass());
        optional(json, "createdAt", event.createdAt());
        optional(json, "parkedAt", event.parkedAt());
        optional(json, "deliveredAt", event.deliveredAt());
        optional(json, "brokerMessageId", event.brokerMessageId());
        if (!event.acceptedBy().isEmpty()) { // R6.6: its body can no longer be repaired
            JsonArrayBuilder accepted = Json.createArrayBuilder();
            event.acceptedBy().forEach(accepted::add);
            json.add("acceptedBy", accepted);
        }
        optional(json, "payloadRef", event.payloadRef());
        optional(json, "payload", event.payload());
        return json.build();
    }

    static JsonObject plan(ReplayPlan plan) {
        JsonArrayBuilder ids = Json.createArrayBuilder();
        plan.eventIds().forEach(id -> ids.add(id.toString()));
        return Json.createObjectBuilder()
                .add("dryRun", true)
                .add("events", plan.events())
                .add("byEventType", counts(plan.byEventType()))
                .add("destinations", counts(plan.destinations()))
                .add("consumers", counts(plan.consumers()))
                .add("sideEffects", counts(plan.sideEffects()))
                .add("consumersReadFrom", plan.sampled())
                .add("skipped", texts(plan.skipped()))
                .add("approvalRequired", plan.approvalRequired())
                .add("spreadOverSeconds", plan.duration().toMillis() / 1000.0)
                .add("eventIds", ids)
                .build();
    }

    static JsonObject decision(ReplayDecision decision) {
        JsonObjectBuilder json = Json.createObjectBuilder()
                .add("requestId", decision.requestId().toString())
                .add("state", decision.state())
                .add("requestedBy", decision.requestedBy())
                .add("reason", decision.reason())
                .add("selection", decision.selection())
                .add("events", decision.eventCount())
                .add("replayed", decision.replayed());
        if (decision.state().equals("EXECUTED")) {
            // R9.4: a running replay's progress, its events by their state now
            json.add("progress", counts(decision.progress()));
        }
        optional(json, "decidedBy", decision.decidedBy());
        optional(json, "decidedAt", decision.decidedAt());
        if (decision.change() != null) {
            // R9.4: what a content change does, as the approver decides on it; a value left out is absent there.
            // The values come as JSON and as their exact text: a browser's JSON.parse rounds long numbers.
            JsonArrayBuilder change = Json.createArrayBuilder();
            for (ContentDiff.Change place : decision.change()) {
                JsonObjectBuilder entry = Json.createObjectBuilder().add("path", place.path());
                if (place.before() != null) {
                    entry.add("before", place.before()).add("beforeText", place.before().toString());
                }
                if (place.after() != null) {
                    entry.add("after", place.after()).add("afterText", place.after().toString());
                }
                change.add(entry);
            }
            json.add("change", change);
        }
        return json.build();
    }

    static JsonObject audit(AuditEntry entry) {
        JsonObjectBuilder json = Json.createObjectBuilder()
                .add("at", entry.at().toString())
                .add("actor", entry.actor())
                .add("action", entry.action())
                .add("detail", entry.detail());
        optional(json, "eventId", entry.eventId());
        optional(json, "requestId", entry.requestId());
        return json.build();
    }

    static UUID uuid(String field, String text) {
        try {
            return UUID.fromString(text);
        } catch (IllegalArgumentException | NullPointerException e) {
            throw new AdminRefusal(AdminRefusal.Kind.INVALID, field + " must be a UUID, but was '" + text + "'");
        }
    }

    /** A page size from a query parameter: 1 to 1000. */
    static int limit(int limit) {
        if (limit < 1 || limit > 1000) {
            throw new AdminRefusal(AdminRefusal.Kind.INVALID, "limit must be from 1 to 1000, but was " + limit);
        }
        return limit;
    }

    /**
     * A request body as a JSON object, or null when there is none. Read here rather than by the JAX-RS provider, so
     * that a body that is an array, a bare value, too deeply nested or a number beyond the parser's limits is a 400
     * that says so, not a 500 from the provider's argument binding.
     */
    static JsonObject body(String raw) {
        if (raw == null || raw.isBlank()) {
            return null;
        }
        try (JsonParser parser = Json.createParser(new StringReader(raw))) {
            if (!parser.hasNext() || parser.next() != JsonParser.Event.START_OBJECT) {
                throw new AdminRefusal(AdminRefusal.Kind.INVALID, "the request body must be one JSON object");
            }
            JsonObject object = parser.getObject();
            if (parser.hasNext()) {
                throw new AdminRefusal(AdminRefusal.Kind.INVALID, "the request body must be one JSON object, with"
                        + " nothing after it");
            }
            return object;
        } catch (JsonException | IllegalStateException | UnsupportedOperationException
                 | java.util.NoSuchElementException notAnObject) {
            // Parsson refuses numbers over 1,100 digits with UnsupportedOperationException, not a JsonException.
            throw new AdminRefusal(AdminRefusal.Kind.INVALID, "the request body must be one JSON object");
        } catch (RuntimeException e) {
            if (e.getClass() != RuntimeException.class) {
                throw e;
            }
            // Parsson refuses nesting deeper than 1,000 with a plain RuntimeException; anything else is ours.
            throw new AdminRefusal(AdminRefusal.Kind.INVALID, "the request body must be one JSON object");
        }
    }

    /** A text field of a request body, or null when absent or JSON null. */
    static String text(JsonObject body, String field) {
        JsonValue value = body == null ? null : body.get(field);
        if (value == null || value.getValueType() == JsonValue.ValueType.NULL) {
            return null;
        }
        if (value instanceof JsonString string) {
            String text = string.getString();
            if (text.chars().anyMatch(c -> Character.isISOControl(c) && c != '\n' && c != '\r' && c != '\t')) {
                // PostgreSQL cannot store or compare NUL in text: refused here instead of failing the query.
                throw new AdminRefusal(AdminRefusal.Kind.INVALID, field + " must not contain control characters");
            }
            return text;
        }
        throw new AdminRefusal(AdminRefusal.Kind.INVALID, field + " must be a JSON string");
    }

    private static JsonObjectBuilder counts(Map<String, Long> counts) {
        JsonObjectBuilder json = Json.createObjectBuilder();
        counts.forEach(json::add);
        return json;
    }

    private static JsonObjectBuilder texts(Map<String, String> texts) {
        JsonObjectBuilder json = Json.createObjectBuilder();
        texts.forEach(json::add);
        return json;
    }

    private static void optional(JsonObjectBuilder json, String name, Object value) {
        if (value != null) {
            json.add(name, value instanceof Temporal ? value.toString() : String.valueOf(value));
        }
    }

    /**
     * The repaired body's schema version (R2.5): a whole number from 1 to 2147483647. A larger number is refused,
     * never truncated into another version.
     */
    static int schemaVersion(JsonObject body) {
        if (body.get("schemaVersion") instanceof JsonNumber version && version.isIntegral()) {
            try {
                int exact = version.intValueExact();
                if (exact >= 1) {
                    return exact;
                }
            } catch (ArithmeticException tooLarge) {
                // refused below, with the rule
            }
        }
        throw new AdminRefusal(AdminRefusal.Kind.INVALID, "schemaVersion must be a whole number from 1 to "
                + Integer.MAX_VALUE + " (the version of the repaired body's schema, R2.5), was " + body.get("schemaVersion"));
    }
}
