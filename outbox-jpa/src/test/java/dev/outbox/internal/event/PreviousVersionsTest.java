package dev.outbox.internal.event;

import org.junit.jupiter.api.Test;

import java.util.Map;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The previous versions an event carries (R5.7), as the recorder builds them and the inbox reads them. */
class PreviousVersionsTest {

    @Test
    void eachEventCarriesTheLatestEarlierVersionOfEveryTypeBeforeIt() {
        PreviousVersions beforeV4 = PreviousVersions.NONE.then("OrderPlaced", 1).then("OrderPaid", 2)
                .then("OrderNoted", 3);
        PreviousVersions beforeV6 = beforeV4.then("OrderPaid", 4).then("OrderNoted", 5);

        assertEquals("OrderNoted=5,OrderPaid=4,OrderPlaced=1", beforeV6.text(), "newest first, one item per type");
        assertEquals(4, beforeV6.latestOf(Set.of("OrderPaid", "OrderRefunded")));
        assertEquals(0, beforeV6.latestOf(Set.of("OrderRefunded")), "a type that never came: nothing to wait for");
    }

    @Test
    void theTextReadsBackAsItWasWritten() {
        PreviousVersions written = new PreviousVersions(Map.of("OrderPlaced", 1L, "order.v2-Paid", 7L));
        assertEquals(written, PreviousVersions.parse(written.text()));
        assertEquals(PreviousVersions.NONE, PreviousVersions.parse(""), "empty: none known, the history was cleaned");
    }

    @Test
    void damagedTextIsRefusedNamingTheItem() {
        IllegalArgumentException refused = assertThrows(IllegalArgumentException.class,
                () -> PreviousVersions.parse("OrderPlaced=1,OrderPaid"));
        assertTrue(refused.getMessage().contains("'OrderPaid'"), refused.getMessage());
        assertThrows(IllegalArgumentException.class, () -> PreviousVersions.parse("OrderPlaced=0"));
    }

    @Test
    void overTheColumnsLengthNoneAreSentSoConsumersWaitForTheVersionJustBefore() {
        PreviousVersions many = PreviousVersions.NONE;
        for (int v = 1; v <= 200; v++) {
            many = many.then("SomeRatherLongEventTypeName" + v, v);
        }
        assertNull(many.text(), "leaving the oldest types out would let a consumer of those go ahead of them");
        assertEquals("", PreviousVersions.NONE.text(), "none known is said, not left unsaid");
    }
}
