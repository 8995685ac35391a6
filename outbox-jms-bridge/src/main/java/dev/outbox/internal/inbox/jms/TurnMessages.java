package dev.outbox.internal.inbox.jms;

import dev.outbox.InboxedEvent;
import dev.outbox.OutboxHeaders;
import dev.outbox.internal.inbox.Received;
import jakarta.jms.ConnectionFactory;
import jakarta.jms.JMSContext;
import jakarta.jms.JMSException;
import jakarta.jms.Message;
import jakarta.jms.TextMessage;

import javax.naming.InitialContext;
import javax.naming.NamingException;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * The JMS side of an event that waited for its turn (R5.7): what of the received message is kept besides the event
 * (its other properties, say an {@code outboxPayloadReference}), and the message rebuilt from that when the MDB
 * applies it: a TextMessage with the same body and properties. It has no broker message id of its own (it is not
 * sent again) and is never redelivered: the inbox's transaction is its only attempt at a time.
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

    /** Opens a JMS context on the platform's default connection factory, to build messages in. */
    static JMSContext context() {
        try {
            return ((ConnectionFactory) new InitialContext().lookup("java:comp/DefaultJMSConnectionFactory"))
                    .createContext();
        } catch (NamingException e) {
            throw new IllegalStateException("no java:comp/DefaultJMSConnectionFactory to rebuild a waiting event's"
                    + " message in", e);
        }
    }

    /** The message of an event that waited, as it arrived (body and properties). */
    static TextMessage rebuild(JMSContext context, Received received) throws JMSException {
        InboxedEvent event = received.event();
        TextMessage message = context.createTextMessage(event.payload());
        message.setStringProperty(OutboxHeaders.EVENT_ID, event.eventId().toString());
        message.setStringProperty(OutboxHeaders.EVENT_TYPE, event.eventType());
        message.setStringProperty(OutboxHeaders.AGGREGATE_TYPE, event.aggregateType());
        message.setStringProperty(OutboxHeaders.AGGREGATE_ID, event.aggregateId());
        message.setLongProperty(OutboxHeaders.AGGREGATE_VERSION, event.aggregateVersion());
        if (event.schemaVersion() != null) {
            message.setIntProperty(OutboxHeaders.SCHEMA_VERSION, event.schemaVersion());
        }
        message.setStringProperty(OutboxHeaders.ORDERING, event.ordering().header());
        if (event.trace() != null) {
            message.setStringProperty(OutboxHeaders.TRACEPARENT, event.trace().traceParent());
            if (event.trace().traceState() != null) {
                message.setStringProperty(OutboxHeaders.TRACESTATE, event.trace().traceState());
            }
        }
        for (Map.Entry<String, String> property : received.properties().entrySet()) {
            message.setStringProperty(property.getKey(), property.getValue());
        }
        return message;
    }
}
