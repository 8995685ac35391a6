package dev.outbox.internal.transport;

import dev.outbox.EventId;
import dev.outbox.Ordering;
import dev.outbox.OutboxEvent;
import dev.outbox.internal.config.InvalidSettingException;
import dev.outbox.spi.OutboundEvent;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Issue 45 item 6: which CloudEvents attributes an event goes out with, and only when its type opts in. */
class CloudEventAttributesTest {

    private static final OffsetDateTime RECORDED = OffsetDateTime.of(2026, 12, 7, 16, 30, 0, 123_456_000, ZoneOffset.ofHours(1));

    private static OutboundEvent outbound(OutboxEvent event) {
        return new OutboundEvent(EventId.next(), event, RECORDED, 1, 1, false, Ordering.STRICT, null);
    }

    private static CloudEventAttributes with(Map<String, String> settings) {
        return new CloudEventAttributes(name -> Optional.ofNullable(settings.get(name)));
    }

    @Test
    void anEventGoesOutWithoutCloudEventsUnlessItsTypeOptsIn() {
        OutboundEvent paid = outbound(OutboxEvent.of("Order", "o-1", 2, "OrderPaid", "{}"));
        assertEquals(Map.of(), with(Map.of()).of(paid), "off by default");
        assertEquals(Map.of(), with(Map.of("outbox.cloudevents.enabled", "true",
                "outbox.cloudevents.enabled.OrderPaid", "false")).of(paid), "a type may opt out of the default");
        assertTrue(!with(Map.of("outbox.cloudevents.enabled.OrderPaid", "true")).of(paid).isEmpty(),
                "a type may opt in alone");
    }

    @Test
    void theAttributesAreTheEventsIdTypeSourceTimeAndItsAggregatesKeyAndVersion() {
        OutboundEvent paid = outbound(OutboxEvent.of("Order", "o-1", 2, "OrderPaid", "{}"));
        Map<String, String> attributes = with(Map.of("outbox.cloudevents.enabled", "true",
                "outbox.cloudevents.source", "/orders")).of(paid);
        assertEquals(List.of("specversion", "id", "source", "type", "time", "subject", "partitionkey",
                "aggregateversion", "datacontenttype"), List.copyOf(attributes.keySet()), "the order the headers go out in");
        assertEquals("1.0", attributes.get("specversion"));
        assertEquals(paid.id().toString(), attributes.get("id"), "the event id, the same in every re-send (R2.2)");
        assertEquals("/orders", attributes.get("source"));
        assertEquals("OrderPaid", attributes.get("type"));
        assertEquals("2026-12-07T15:30:00.123456Z", attributes.get("time"), "RFC 3339, in UTC");
        assertEquals("Order/o-1", attributes.get("subject"));
        assertEquals("o-1", attributes.get("partitionkey"));
        assertEquals("2", attributes.get("aggregateversion"), "the aggregate's version, not the sequence extension,"
                + " which orders a whole source's events as text");
        assertEquals("application/json", attributes.get("datacontenttype"));
    }

    @Test
    void anEventStoredByReferenceGoesOutWithoutDataAndNamesItsReference() {
        OutboundEvent large = outbound(OutboxEvent.referencing("Order", "o-1", 3, "OrderDocument",
                URI.create("https://files.example/orders/o-1/v3")));
        Map<String, String> attributes = with(Map.of("outbox.cloudevents.enabled", "true")).of(large);
        assertEquals("/outbox", attributes.get("source"), "the default source");
        assertTrue(!attributes.containsKey("datacontenttype"), "no data: " + attributes);
        assertEquals("https://files.example/orders/o-1/v3", attributes.get("dataref"), "the dataref extension");
    }

    @Test
    void theStartUpCheckRefusesABadFlagOfAnyTypeAndASourceThatIsNoUriReference() {
        assertDoesNotThrow(() -> CloudEventAttributes.check(name -> Optional.empty(), List.of()), "the defaults");
        Map<String, String> badType = Map.of("outbox.cloudevents.enabled.OrderPaid", "yes");
        InvalidSettingException flag = assertThrows(InvalidSettingException.class,
                () -> CloudEventAttributes.check(name -> Optional.ofNullable(badType.get(name)), badType.keySet()));
        assertTrue(flag.getMessage().contains("outbox.cloudevents.enabled.OrderPaid"), flag.getMessage());
        Map<String, String> badSource = Map.of("outbox.cloudevents.source", "orders service");
        InvalidSettingException source = assertThrows(InvalidSettingException.class,
                () -> CloudEventAttributes.check(name -> Optional.ofNullable(badSource.get(name)), badSource.keySet()));
        assertTrue(source.getMessage().contains("outbox.cloudevents.source"), source.getMessage());
    }

    @Test
    void aValueThatIsNotTrueOrFalseNamesTheTypesSetting() {
        InvalidSettingException refused = assertThrows(InvalidSettingException.class, () -> with(Map.of(
                "outbox.cloudevents.enabled.OrderPaid", "yes")).of(outbound(OutboxEvent.of("Order", "o-1", 2, "OrderPaid", "{}"))));
        assertTrue(refused.getMessage().contains("outbox.cloudevents.enabled.OrderPaid"), refused.getMessage());
    }
}
