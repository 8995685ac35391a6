package dev.outbox.internal.transport;

import dev.outbox.OutboxEvent;
import dev.outbox.internal.config.InvalidSettingException;
import dev.outbox.internal.config.Settings;
import dev.outbox.spi.OutboundEvent;

import java.net.URI;
import java.net.URISyntaxException;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;

/**
 * The CloudEvents 1.0 context attributes an event is sent with when its type opts in
 * ({@code outbox.cloudevents.enabled}), for consumers the outbox's own inbox is not behind: {@code id} is the event
 * id (R2.2: a re-send carries the same one, so a CloudEvents consumer deduplicates as the inbox does), the
 * partitioning extension's {@code partitionkey} the aggregate id, and {@code aggregateversion} (an extension of this
 * outbox) the aggregate's version (R2.3). The sequence extension is not used: it orders a whole source's events as
 * text, and the version orders one aggregate's. An event stored by reference (R3.5) goes without data and names it
 * in the dataref extension. Each transport writes the attributes in its binding's binary mode (Kafka {@code ce_}
 * headers, JMS {@code cloudEvents_} properties); the body stays the payload. Read per send, like the destinations.
 */
public final class CloudEventAttributes {

    public static final String SPEC_VERSION = "1.0";
    /** The attribute a binding may carry outside its prefix (Kafka: the {@code content-type} header). */
    public static final String DATA_CONTENT_TYPE = "datacontenttype";

    private final Function<String, Optional<String>> settings;

    public CloudEventAttributes(Function<String, Optional<String>> settings) {
        this.settings = settings;
    }

    /**
     * Refuses, at the publisher's start, what would otherwise fail every send of a type or every consumer that reads
     * it: a flag that is not true or false, per type included, and a source that is not a URI reference.
     *
     * @param names every configuration property name, to find the per-type flags
     */
    public static void check(Function<String, Optional<String>> settings, Iterable<String> names) {
        Settings.CLOUD_EVENTS.flag(settings);
        String prefix = Settings.CLOUD_EVENTS.name() + ".";
        for (String name : names) {
            if (name.startsWith(prefix) && name.length() > prefix.length()) {
                Settings.CLOUD_EVENTS.flag(settings, name.substring(prefix.length()));
            }
        }
        String source = Settings.CLOUD_EVENTS_SOURCE.text(settings);
        if (source == null || source.isBlank() || !isUriReference(source)) {
            throw new InvalidSettingException(Settings.CLOUD_EVENTS_SOURCE.name(),
                    "must be a URI reference (CloudEvents source), such as /orders or urn:example:orders", source);
        }
    }

    private static boolean isUriReference(String text) {
        try {
            new URI(text);
            return true;
        } catch (URISyntaxException e) {
            return false;
        }
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
        attributes.put("aggregateversion", Long.toString(event.aggregateVersion()));
        if (event.payloadReference() != null) {
            attributes.put("dataref", event.payloadReference().toString());
        } else {
            attributes.put(DATA_CONTENT_TYPE, "application/json");
        }
        return attributes;
    }
}
