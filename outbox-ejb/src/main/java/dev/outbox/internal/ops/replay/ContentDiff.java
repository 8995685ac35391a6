package dev.outbox.internal.ops.replay;

import dev.outbox.internal.persistence.ReplayRequests.ContentChange;
import jakarta.json.Json;
import jakarta.json.JsonArray;
import jakarta.json.JsonObject;
import jakarta.json.JsonReader;
import jakarta.json.JsonValue;

import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * A content change of a parked event as its approver reads it (R9.4): the JSON members that change, by JSON Pointer,
 * with their values before and after; the body's reference and the schema version where they change. What stays the
 * same is not listed, so a one-field fix of a large body is one line.
 */
public final class ContentDiff {

    /**
     * One changed place.
     *
     * @param path   a JSON Pointer into the body ({@code /items/0/price}), or {@code payload}, {@code payloadRef} or
     *               {@code schemaVersion} for the whole body, its reference and its schema version
     * @param before the value before; null where there was none (a member added)
     * @param after  the value after; null where there is none (a member removed)
     */
    public record Change(String path, JsonValue before, JsonValue after) {
    }

    private ContentDiff() {
    }

    /** What the change does, in the order of the body's members (the old body's first, then those it adds). */
    public static List<Change> of(ContentChange change) {
        List<Change> changes = new ArrayList<>();
        if (change.payloadBefore() != null && change.payload() != null) {
            compare("", parse(change.payloadBefore()), parse(change.payload()), changes);
        } else if (!Objects.equals(change.payloadBefore(), change.payload())) {
            // A body moved to a reference, or back: the whole body is the change.
            changes.add(new Change("payload", bodyOrNull(change.payloadBefore()), bodyOrNull(change.payload())));
        }
        if (!Objects.equals(change.payloadRefBefore(), change.payloadRef())) {
            changes.add(new Change("payloadRef", textOrNull(change.payloadRefBefore()), textOrNull(change.payloadRef())));
        }
        if (change.schemaVersionBefore() != change.schemaVersion()) {
            changes.add(new Change("schemaVersion", Json.createValue(change.schemaVersionBefore()),
                    Json.createValue(change.schemaVersion())));
        }
        return changes;
    }

    /** Evidence of a body without the body (R6.3): its size and SHA-256, or its reference. */
    public static String fingerprint(String payload, String payloadRef) {
        if (payload == null) {
            return "reference " + payloadRef;
        }
        byte[] bytes = payload.getBytes(StandardCharsets.UTF_8);
        try {
            return bytes.length + " bytes sha256:" + HexFormat.of().formatHex(
                    MessageDigest.getInstance("SHA-256").digest(bytes));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    private static void compare(String path, JsonValue before, JsonValue after, List<Change> changes) {
        if (before instanceof JsonObject left && after instanceof JsonObject right) {
            Set<String> names = new LinkedHashSet<>(left.keySet());
            names.addAll(right.keySet());
            for (String name : names) {
                compare(path + "/" + escaped(name), left.get(name), right.get(name), changes);
            }
        } else if (before instanceof JsonArray left && after instanceof JsonArray right) {
            for (int i = 0; i < Math.max(left.size(), right.size()); i++) {
                compare(path + "/" + i, i < left.size() ? left.get(i) : null, i < right.size() ? right.get(i) : null,
                        changes);
            }
        } else if (!Objects.equals(before, after)) {
            changes.add(new Change(path.isEmpty() ? "payload" : path, before, after));
        }
    }

    /** RFC 6901: a member's name in a pointer, with its '~' and '/' escaped. */
    private static String escaped(String name) {
        return name.replace("~", "~0").replace("/", "~1");
    }

    private static JsonValue parse(String json) {
        try (JsonReader reader = Json.createReader(new StringReader(json))) {
            return reader.readValue();
        }
    }

    private static JsonValue bodyOrNull(String json) {
        return json == null ? null : parse(json);
    }

    private static JsonValue textOrNull(String text) {
        return text == null ? null : Json.createValue(text);
    }
}
