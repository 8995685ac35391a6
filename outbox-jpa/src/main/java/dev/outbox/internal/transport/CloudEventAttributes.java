package dev.outbox.internal.transport;

import dev.outbox.OutboxEvent;
import dev.outbox.internal.config.Settings;
import dev.outbox.spi.OutboundEvent;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;

/**
 * The CloudEvents 1.0 context attributes an event is sent with when its type opts in
 * ({@code outbox.cloudevents.enabled}), for consumers the outbox's own inbox is not behind: {@code id} is the event
 * id (R2.2: a re-send carries the same one, so a CloudEvents consumer deduplicates as the inbox does), the
 * partitioning extension's {@code partitionkey} the aggregate id and the sequence extension's {@code sequence} the
 * aggregate version (R2.3). Each transport writes them in its binding's binary mode (Kafka {@code ce_} headers, JMS
 * {@code cloudEvents_} properties); the body stays the payload. Read per send, like the destinations.
 */
public final class CloudEventAttributes {

    public static final String SPEC_VERSION = "1.0";
    /** The attribute a binding may carry outside its prefix (Kafka: the {@code content-type} header). */
    public static final String DATA_CONTENT_TYPE = "datacontenttype";

    private final Function<String, Optional<String>> settings;

    public CloudEventAttributes(Function<String, Optional<String>> settings) {
        this.settings = settings;
    }

    /** The attributes by name, in a fixed order, or none when the event's type does not opt in. */
    public Map<String, String> of(OutboundEvent outbound) {
        OutboxEvent event = outbound.event();
        if (!Settings.CLOUD_EVENTS.flag(settings, event.eventType())) {
            return Map.of();
        }
        Map<String, String> attributes = new LinkedHashMap<>();
        attributes.put("specversion", SPEC_VERSION);
        attributes.put("id", outbound.id().toString());
        attributes.put("source", Settings.CLOUD_EVENTS_SOURCE.text(settings));
        attributes.put("type", event.eventType());
        attributes.put("time", outbound.createdAt().toInstant().toString()); // RFC 3339, UTC
        attributes.put("subject", event.aggregateType() + "/" + event.aggregateId());
        attributes.put("partitionkey", event.aggregateId());
        attributes.put("sequence", Long.toString(event.aggregateVersion()));
        if (event.payload() != null) {
            attributes.put(DATA_CONTENT_TYPE, "application/json"); // a body by reference (R3.5) goes without data
        }
        return attributes;
    }
}
