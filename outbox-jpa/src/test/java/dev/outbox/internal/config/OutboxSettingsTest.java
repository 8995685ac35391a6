package dev.outbox.internal.config;

import org.junit.jupiter.api.Test;

import java.util.Map;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class OutboxSettingsTest {

    private static OutboxSettings read(Map<String, String> values) {
        return OutboxSettings.read(name -> Optional.ofNullable(values.get(name)));
    }

    @Test
    void defaultsApplyWhenNothingIsSet() {
        OutboxSettings settings = read(Map.of());
        assertEquals(65_536, settings.maxPayloadBytes());
        assertFalse(settings.createSchema());
        assertEquals("java:comp/DefaultDataSource", settings.dataSource());
        assertEquals("auto", settings.dialect());
    }

    @Test
    void valuesAreReadAndTrimmed() {
        OutboxSettings settings = read(Map.of("outbox.payload.max-bytes", " 1024 ", "outbox.schema.create", "TRUE",
                "outbox.dialect", "PostgreSQL"));
        assertEquals(1024, settings.maxPayloadBytes());
        assertTrue(settings.createSchema());
        assertEquals("postgresql", settings.dialect());
    }

    @Test
    void aBadValueNamesTheServerXmlVariableAndTheValue() {
        InvalidSettingException e = assertThrows(InvalidSettingException.class,
                () -> read(Map.of("outbox.payload.max-bytes", "64k")));
        assertEquals("outbox.payload.max-bytes", e.name());
        assertTrue(e.getMessage().contains("setting outbox.payload.max-bytes (a server.xml variable on Liberty"), e.getMessage());
        assertTrue(e.getMessage().contains("'64k'"), e.getMessage());
    }

    @Test
    void theTypesAConsumerReceivesAreReadByConsumerAndABadItemNamesTheVariable() {
        OutboxSettings settings = read(Map.of("outbox.inbox.receives",
                " receipts:OrderPaid, receipts:OrderRefunded ,shipping:OrderPaid"));
        assertEquals(Map.of("receipts", java.util.Set.of("OrderPaid", "OrderRefunded"), "shipping",
                java.util.Set.of("OrderPaid")), settings.receives());
        for (String bad : new String[] {"OrderPaid", "receipts:", ":OrderPaid", "a:b:c", "receipts:Order Paid"}) {
            InvalidSettingException e = assertThrows(InvalidSettingException.class,
                    () -> read(Map.of("outbox.inbox.receives", bad)), bad);
            assertEquals("outbox.inbox.receives", e.name());
            assertTrue(e.getMessage().contains("'" + bad.substring(bad.indexOf(':') + 1)) || e.getMessage()
                    .contains("'" + bad + "'"), e.getMessage());
        }
    }

    @Test
    void outOfRangeAndUnknownValuesAreRefused() {
        assertThrows(InvalidSettingException.class, () -> read(Map.of("outbox.payload.max-bytes", "0")));
        assertThrows(InvalidSettingException.class, () -> read(Map.of("outbox.payload.max-bytes", "2000000")));
        assertEquals("outbox.schema.create",
                assertThrows(InvalidSettingException.class, () -> read(Map.of("outbox.schema.create", "yes"))).name());
        assertEquals("outbox.dialect",
                assertThrows(InvalidSettingException.class, () -> read(Map.of("outbox.dialect", "oracle"))).name());
    }

    @Test
    void durationsAreIso8601AndABadOneNamesTheVariable() {
        assertEquals(java.time.Duration.ofDays(7), Settings.CLEANUP_DELIVERED_RETENTION.duration(name -> Optional.of("P7D")));
        InvalidSettingException e = assertThrows(InvalidSettingException.class,
                () -> Settings.CLEANUP_DELIVERED_RETENTION.duration(name -> Optional.of("7 days")));
        assertTrue(e.getMessage().contains("outbox.cleanup.delivered-retention"), e.getMessage());
    }

    /**
     * Issue 41: the gap window only says when a waiting event is reported as a gap (nothing is applied or dropped on
     * a timer any more), so it no longer has to fit the broker's redelivery budget; a window of 0 would report every
     * ordinary reordering between concurrent consumers as a gap, and stops the start.
     */
    @Test
    void aGapWindowOfZeroStopsTheStartAndALongOneIsFine() {
        InvalidSettingException e = assertThrows(InvalidSettingException.class,
                () -> read(Map.of("outbox.inbox.gap-window-ms", "0")));
        assertEquals("outbox.inbox.gap-window-ms", e.name());
        assertEquals(600_000, read(Map.of("outbox.inbox.gap-window-ms", "600000")).inboxGapWindow().toMillis(),
                "ten minutes: a wait is no longer bounded by the broker's redeliveries");
        assertEquals(2000, read(Map.of()).inboxGapWindow().toMillis());
    }
}
