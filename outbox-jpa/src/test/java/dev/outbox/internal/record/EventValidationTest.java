package dev.outbox.internal.record;

import dev.outbox.InvalidEventException;
import dev.outbox.OutboxEvent;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.net.URI;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class EventValidationTest {

    private final EventValidation validation = new EventValidation(100);

    private static OutboxEvent event(String aggregateType, String aggregateId, long version, String eventType,
                                     String payload) {
        return OutboxEvent.of(aggregateType, aggregateId, version, eventType, payload);
    }

    private String rejectedField(OutboxEvent event) {
        return assertThrows(InvalidEventException.class, () -> validation.check(List.of(event)),
                "should be rejected: " + event).field();
    }

    @Test
    void aWellFormedEventPasses() {
        assertDoesNotThrow(() -> validation.check(List.of(event("Order", "o-1", 1, "OrderPlaced", "{\"a\":1}"))));
    }

    @Test
    void blankIdsAreRejectedByName() {
        assertEquals("aggregateType", rejectedField(event(" ", "o-1", 1, "OrderPlaced", "{}")));
        assertEquals("aggregateId", rejectedField(event("Order", "  ", 1, "OrderPlaced", "{}")));
        assertEquals("aggregateId", rejectedField(event("Order", null, 1, "OrderPlaced", "{}")));
        assertEquals("eventType", rejectedField(event("Order", "o-1", 1, "", "{}")));
    }

    @Test
    void versionsBelowOneAreRejected() {
        assertEquals("aggregateVersion", rejectedField(event("Order", "o-1", 0, "OrderPlaced", "{}")));
        assertEquals("schemaVersion", rejectedField(event("Order", "o-1", 1, "OrderPlaced", "{}").withSchemaVersion(0)));
    }

    @ParameterizedTest
    @ValueSource(strings = {"order placed", "1Order", "Order!", "Ordér", "a/b"})
    void malformedEventTypesAreRejected(String type) {
        InvalidEventException e = assertThrows(InvalidEventException.class,
                () -> validation.check(List.of(event("Order", "o-1", 1, type, "{}"))));
        assertEquals("eventType", e.field());
        assertTrue(e.getMessage().contains("'" + type + "'"), "the message quotes the bad value: " + e.getMessage());
    }

    @Test
    void dottedAndDashedEventTypesAreAccepted() {
        assertDoesNotThrow(() -> validation.check(List.of(event("billing.Invoice", "i", 1, "invoice-issued.v2", "{}"))));
    }

    @Test
    void aPayloadOverTheLimitIsRejectedAndTheMessageNamesTheSetting() {
        String body = "{\"k\":\"" + "x".repeat(100) + "\"}";
        InvalidEventException e = assertThrows(InvalidEventException.class,
                () -> validation.check(List.of(event("Order", "o-1", 1, "OrderPlaced", body))));
        assertEquals("payload", e.field());
        assertTrue(e.getMessage().contains("outbox.payload.max-bytes"), e.getMessage());
        assertFalse(e.getMessage().contains("xxxx"), "the payload itself never reaches the message (R6.3)");
    }

    @Test
    void thePayloadLimitCountsUtf8BytesNotCharacters() {
        // 40 three-byte characters: 120 bytes in 40 chars.
        String body = "{\"k\":\"" + "\u20ac".repeat(40) + "\"}";
        assertEquals("payload", rejectedField(event("Order", "o-1", 1, "OrderPlaced", body)));
        assertEquals(4, EventValidation.utf8Length("\uD83D\uDE00"), "a surrogate pair is 4 bytes");
    }

    @ParameterizedTest
    @ValueSource(strings = {"not json", "{\"a\":", "[1,2]", "\"text\"", "{} {}", "{\"secret\":tru}"})
    void aPayloadThatIsNotOneJsonObjectIsRejected(String payload) {
        InvalidEventException e = assertThrows(InvalidEventException.class,
                () -> validation.check(List.of(event("Order", "o-1", 1, "OrderPlaced", payload))));
        assertEquals("payload", e.field());
        assertFalse(e.getMessage().contains("secret"), "no payload content in the message: " + e.getMessage());
    }

    // R9.4: a body that names a member twice reads differently to different parsers (first or last wins), so the
    // diff an approver sees could hide the value a consumer applies.
    @ParameterizedTest
    @ValueSource(strings = {"{\"secret\":4000,\"secret\":4}", "{\"a\":{\"secret\":1,\"b\":[{\"secret\":2}],\"secret\":3}}"})
    void aPayloadThatNamesAMemberTwiceInOneObjectIsRejected(String payload) {
        InvalidEventException e = assertThrows(InvalidEventException.class,
                () -> validation.check(List.of(event("Order", "o-1", 1, "OrderPlaced", payload))));
        assertEquals("payload", e.field());
        assertTrue(e.getMessage().contains("names a member twice"), e.getMessage());
        assertFalse(e.getMessage().contains("secret"), "no payload content in the message: " + e.getMessage());
    }

    @Test
    void theSameMemberNameInSiblingObjectsIsAccepted() {
        assertDoesNotThrow(() -> validation.check(List.of(event("Order", "o-1", 1, "OrderPlaced",
                "{\"a\":{\"id\":1},\"b\":{\"id\":2},\"c\":[{\"id\":3},{\"id\":4}]}"))));
    }

    @Test
    void exactlyOneOfPayloadAndReferenceIsRequired() {
        assertEquals("payload", rejectedField(new OutboxEvent("Order", "o", 1, "T", 1, null, null)));
        assertEquals("payload", rejectedField(new OutboxEvent("Order", "o", 1, "T", 1, "{}", URI.create("s3://b/k"))));
        assertEquals("payloadReference", rejectedField(OutboxEvent.referencing("Order", "o", 1, "T", URI.create("relative/path"))));
        assertDoesNotThrow(() -> validation.check(List.of(
                OutboxEvent.referencing("Order", "o", 1, "T", URI.create("https://docs.example/orders/o/v1")))));
    }

    @Test
    void eventsOfOneAggregateInOneCallMustHaveIncreasingVersions() {
        InvalidEventException e = assertThrows(InvalidEventException.class, () -> validation.check(List.of(
                event("Order", "o-1", 2, "A", "{}"), event("Order", "o-1", 2, "B", "{}"))));
        assertEquals("aggregateVersion", e.field());
        assertThrows(InvalidEventException.class, () -> validation.check(List.of(
                event("Order", "o-1", 3, "A", "{}"), event("Order", "o-1", 2, "B", "{}"))));
        assertDoesNotThrow(() -> validation.check(List.of(event("Order", "o-1", 2, "A", "{}"),
                event("Order", "o-2", 2, "A", "{}"), event("Order", "o-1", 3, "B", "{}"))));
    }

    @Test
    void aPayloadNestedDeeperThanTheParserAllowsIsRejectedAsInvalidJson() {
        // Parsson refuses nesting deeper than 1000 with a plain RuntimeException: it must not escape as a 500.
        EventValidation roomy = new EventValidation(1_000_000);
        String deep = "{\"a\":" + "[".repeat(1_500) + "]".repeat(1_500) + "}";
        InvalidEventException e = assertThrows(InvalidEventException.class,
                () -> roomy.check(List.of(event("Order", "o-1", 1, "OrderPlaced", deep))));
        assertEquals("payload", e.field());
        InvalidEventException array = assertThrows(InvalidEventException.class,
                () -> roomy.check(List.of(event("Order", "o-1", 1, "OrderPlaced", "[1]"))));
        assertTrue(array.getMessage().contains("must be a JSON object"), "the rule broken keeps its own words: " + array);
    }

    @Test
    void anAggregateIdWithAControlCharacterIsRejected() {
        // PostgreSQL cannot store NUL in text: refused here, by name, instead of failing the insert.
        assertEquals("aggregateId", rejectedField(event("Order", "o-1\u0000", 1, "OrderPlaced", "{}")));
        assertEquals("aggregateId", rejectedField(event("Order", "o-\u001b[31m", 1, "OrderPlaced", "{}")));
        assertDoesNotThrow(() -> validation.check(List.of(event("Order", "caf\u00e9-\ud83d\ude00", 1, "OrderPlaced", "{}"))));
    }

    @Test
    void anEmptyCallIsRejected() {
        assertThrows(InvalidEventException.class, () -> validation.check(List.of()));
    }
}
