package dev.outbox.internal.ops.replay;

import dev.outbox.internal.persistence.ReplayRequests.ContentChange;
import jakarta.json.Json;
import jakarta.json.JsonValue;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.UUID;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Issue 42 item 1 (R9.4): what an approver is shown of a content change. */
class ContentDiffTest {

    private static final UUID EVENT = UUID.randomUUID();

    private static List<ContentDiff.Change> diff(String before, String after) {
        return ContentDiff.of(new ContentChange(EVENT, before, null, 1, after, null, 1));
    }

    @Test
    void onlyTheMembersThatChangeAreListedByPointerWithTheirValuesBeforeAndAfter() {
        String note = "n".repeat(3000);
        List<ContentDiff.Change> changes = diff(
                "{\"orderId\":\"o-1\",\"amount\":4,\"note\":\"" + note + "\",\"customer\":{\"id\":\"c\",\"tier\":\"gold\"}}",
                "{\"orderId\":\"o-1\",\"amount\":4,\"note\":\"short\",\"customer\":{\"id\":\"c\",\"tier\":\"silver\"}}");
        assertEquals(List.of(
                new ContentDiff.Change("/note", Json.createValue(note), Json.createValue("short")),
                new ContentDiff.Change("/customer/tier", Json.createValue("gold"), Json.createValue("silver"))),
                changes, "a one-field fix of a large body is one line; nested members are reached by their path");
    }

    @Test
    void anAddedOrRemovedMemberHasNoValueOnTheSideItIsMissingFrom() {
        List<ContentDiff.Change> changes = diff("{\"a\":1,\"gone\":true}", "{\"a\":1,\"new\":null}");
        assertEquals(List.of(new ContentDiff.Change("/gone", JsonValue.TRUE, null),
                new ContentDiff.Change("/new", null, JsonValue.NULL)), changes,
                "a member set to null is a value (JSON null), not an absence");
    }

    @Test
    void arraysAreComparedPlaceByPlaceAndNamesAreEscapedAsJsonPointerSays() {
        List<ContentDiff.Change> changes = diff("{\"items\":[1,2],\"a/b~c\":1}", "{\"items\":[1,3,4],\"a/b~c\":2}");
        assertEquals(List.of(new ContentDiff.Change("/items/1", Json.createValue(2), Json.createValue(3)),
                new ContentDiff.Change("/items/2", null, Json.createValue(4)),
                new ContentDiff.Change("/a~1b~0c", Json.createValue(1), Json.createValue(2))), changes);
    }

    @Test
    void theSchemaVersionAndAMoveToAReferenceAreChangesToo() {
        List<ContentDiff.Change> changes = ContentDiff.of(new ContentChange(EVENT, "{\"a\":1}", null, 1, null,
                "https://bodies.example/7", 2));
        assertEquals(List.of(
                new ContentDiff.Change("payload", Json.createObjectBuilder().add("a", 1).build(), null),
                new ContentDiff.Change("payloadRef", null, Json.createValue("https://bodies.example/7")),
                new ContentDiff.Change("schemaVersion", Json.createValue(1), Json.createValue(2))), changes);
    }

    @Test
    void anUnchangedBodyIsNoChangeAtAll() {
        assertTrue(diff("{\"a\":[1,{\"b\":2}]}", "{\"a\":[1,{\"b\":2}]}").isEmpty());
    }
}
