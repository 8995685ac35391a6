package dev.outbox.internal.transport.jms;

import dev.outbox.EventId;
import dev.outbox.Ordering;
import dev.outbox.OutboxEvent;
import dev.outbox.internal.transport.CloudEventAttributes;
import dev.outbox.spi.OutboundEvent;
import org.junit.jupiter.api.Test;

import java.time.OffsetDateTime;
import java.util.Map;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

/** Issue 45 item 6 on JMS: a type that opts in goes out with cloudEvents_ properties beside the outbox's own. */
class JmsCloudEventPropertiesTest {

    private static final OutboundEvent PAID = new OutboundEvent(EventId.next(),
            OutboxEvent.of("Order", "o-7", 4, "OrderPaid", "{}"), OffsetDateTime.now(), 1, 1, false, Ordering.STRICT, null);

    private static Map<String, Object> labelled(Map<String, String> settings) throws Exception {
        return LabelledProperties.of(PAID, new CloudEventAttributes(name -> Optional.ofNullable(settings.get(name))).of(PAID));
    }

    @Test
    void aTypeThatOptsInCarriesTheCloudEventsAttributesAsCloudEventsProperties() throws Exception {
        Map<String, Object> properties = labelled(Map.of("outbox.cloudevents.enabled.OrderPaid", "true"));
        assertEquals("1.0", properties.get("cloudEvents_specversion"));
        assertEquals(PAID.id().toString(), properties.get("cloudEvents_id"), "the event id");
        assertEquals("OrderPaid", properties.get("cloudEvents_type"));
        assertEquals("/outbox", properties.get("cloudEvents_source"));
        assertEquals("o-7", properties.get("cloudEvents_partitionkey"));
        assertEquals("4", properties.get("cloudEvents_aggregateversion"));
        assertEquals(PAID.id().toString(), properties.get("outboxEventId"), "the outbox's own properties stay");
    }

    @Test
    void aTypeThatDoesNotOptInCarriesNoCloudEventsProperty() throws Exception {
        assertFalse(labelled(Map.of()).keySet().stream().anyMatch(name -> name.startsWith("cloudEvents_")));
    }
}
