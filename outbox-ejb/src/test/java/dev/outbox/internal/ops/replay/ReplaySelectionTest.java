package dev.outbox.internal.ops.replay;

import dev.outbox.internal.ops.AdminRefusal;
import org.junit.jupiter.api.Test;

import java.time.OffsetDateTime;
import java.util.List;
import java.util.UUID;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A request stores its selection as text; the approval reads it back to know what it approves (R9.4). */
class ReplaySelectionTest {

    @Test
    void everyKindOfSelectionReadsBackAsItWasStored() {
        OffsetDateTime from = OffsetDateTime.parse("2026-12-03T10:00:00Z");
        List<ReplaySelection> selections = List.of(ReplaySelection.ofIds(List.of(UUID.randomUUID(), UUID.randomUUID())),
                new ReplaySelection(List.of(), from, from.plusHours(1), "OrderPaid", null),
                new ReplaySelection(List.of(), null, null, null, "TopicAuthorizationException"),
                new ReplaySelection(List.of(), null, null, "OrderPaid", "InvalidTopicException"));
        for (ReplaySelection selection : selections) {
            assertEquals(selection, ReplaySelection.parse(selection.stored()), selection.stored());
        }
        assertTrue(ReplaySelection.parse("parked:X|").resumesParked(), "a stored bulk resume stays a resume");
    }

    @Test
    void aSelectionNamesExactlyOneKindOfEvents() {
        OffsetDateTime from = OffsetDateTime.parse("2026-12-03T10:00:00Z");
        AdminRefusal both = assertThrows(AdminRefusal.class, () -> new ReplaySelection(List.of(), from,
                from.plusHours(1), null, "TopicAuthorizationException"));
        assertTrue(both.getMessage().contains("exactly one of"), both.getMessage());
        assertThrows(AdminRefusal.class, () -> new ReplaySelection(List.of(), null, null, null, " "));
        assertThrows(AdminRefusal.class, () -> new ReplaySelection(List.of(), null, null, null, "a|b"));
    }
}
