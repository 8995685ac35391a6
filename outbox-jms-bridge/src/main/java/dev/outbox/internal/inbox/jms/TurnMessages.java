package dev.outbox.internal.inbox.jms;

import dev.outbox.OutboxHeaders;
import jakarta.jms.JMSException;
import jakarta.jms.Message;
import jakarta.jms.TextMessage;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * The JMS side of an event that may wait for its turn (R5.7): what of the received message is kept besides the
 * event (its body, its other properties, say an {@code outboxPayloadReference}), for {@link TurnMessage} to rebuild.
 */
final class TurnMessages {

    /** The properties the event itself carries; JMSX* ones belong to the delivery, not the event. */
    private static final Set<String> OWN = Set.of(OutboxHeaders.EVENT_ID, OutboxHeaders.EVENT_TYPE,
            OutboxHeaders.AGGREGATE_TYPE, OutboxHeaders.AGGREGATE_ID, OutboxHeaders.AGGREGATE_VERSION,
            OutboxHeaders.SCHEMA_VERSION, OutboxHeaders.ORDERING, OutboxHeaders.TRACEPARENT, OutboxHeaders.TRACESTATE);

    private TurnMessages() {
    }

    /** The message's properties other than the event's own, as text. */
    static Map<String, String> otherProperties(Message message) throws JMSException {
        Map<String, String> properties = new LinkedHashMap<>();
        for (Object name : Collections.list(message.getPropertyNames())) {
            String property = name.toString();
            if (!OWN.contains(property) && !property.startsWith("JMSX")) {
                Object value = message.getObjectProperty(property);
                if (value != null) {
                    properties.put(property, value.toString());
                }
            }
        }
        return properties;
    }

    /** The body as the MDB reads it, kept with a waiting event; null for a message that is no TextMessage. */
    static String body(Message message) throws JMSException {
        return message instanceof TextMessage text ? text.getText() : null;
    }
}
