package dev.outbox.internal.inbox.jms;

import dev.outbox.InboxedEvent;
import dev.outbox.OutboxHeaders;
import dev.outbox.internal.inbox.Received;
import jakarta.jms.Destination;
import jakarta.jms.JMSException;
import jakarta.jms.MessageFormatException;
import jakarta.jms.MessageNotWriteableException;
import jakarta.jms.TextMessage;

import java.util.Collections;
import java.util.Enumeration;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The message of an event that waited for its turn (R5.7), rebuilt in memory for the MDB's {@code onMessage}: the
 * body and the properties it arrived with, read-only. Built without a JMS session on purpose: a session opened in the
 * inbox's transaction would join it and make every release a two-phase commit with the broker, the in-doubt case the
 * MDB inbox avoids. It has a message id of its own ({@code ID:outbox-turn:<event id>}), is never redelivered, and
 * cannot be acknowledged: the inbox's transaction is what makes it count.
 */
final class TurnMessage implements TextMessage {

    private final String text;
    private final String messageId;
    private final Map<String, Object> properties = new LinkedHashMap<>();

    TurnMessage(Received turn) {
        InboxedEvent event = turn.event();
        this.text = event.payload();
        this.messageId = "ID:outbox-turn:" + event.eventId();
        properties.put(OutboxHeaders.EVENT_ID, event.eventId().toString());
        properties.put(OutboxHeaders.EVENT_TYPE, event.eventType());
        properties.put(OutboxHeaders.AGGREGATE_TYPE, event.aggregateType());
        properties.put(OutboxHeaders.AGGREGATE_ID, event.aggregateId());
        properties.put(OutboxHeaders.AGGREGATE_VERSION, event.aggregateVersion());
        if (event.schemaVersion() != null) {
            properties.put(OutboxHeaders.SCHEMA_VERSION, event.schemaVersion());
        }
        properties.put(OutboxHeaders.ORDERING, event.ordering().header());
        if (event.trace() != null) {
            properties.put(OutboxHeaders.TRACEPARENT, event.trace().traceParent());
            if (event.trace().traceState() != null) {
                properties.put(OutboxHeaders.TRACESTATE, event.trace().traceState());
            }
        }
        properties.putAll(turn.properties());
        properties.values().removeIf(java.util.Objects::isNull);
    }

    @Override
    public String getText() {
        return text;
    }

    @Override
    public void setText(String string) throws JMSException {
        throw readOnly();
    }

    // --- properties: read as JMS converts them (JMS 3.1, 3.5.4) -------------------------------------------------

    @Override
    public boolean propertyExists(String name) {
        return properties.containsKey(name);
    }

    @Override
    public Object getObjectProperty(String name) {
        return properties.get(name);
    }

    @Override
    public String getStringProperty(String name) {
        Object value = properties.get(name);
        return value == null ? null : value.toString();
    }

    @Override
    public boolean getBooleanProperty(String name) throws JMSException {
        Object value = properties.get(name);
        if (value == null || value instanceof String) {
            return Boolean.parseBoolean((String) value);
        }
        if (value instanceof Boolean flag) {
            return flag;
        }
        throw new MessageFormatException("property " + name + " is no boolean");
    }

    @Override
    public byte getByteProperty(String name) throws JMSException {
        return (byte) number(name, Byte.MIN_VALUE, Byte.MAX_VALUE);
    }

    @Override
    public short getShortProperty(String name) throws JMSException {
        return (short) number(name, Short.MIN_VALUE, Short.MAX_VALUE);
    }

    @Override
    public int getIntProperty(String name) throws JMSException {
        return (int) number(name, Integer.MIN_VALUE, Integer.MAX_VALUE);
    }

    @Override
    public long getLongProperty(String name) throws JMSException {
        return number(name, Long.MIN_VALUE, Long.MAX_VALUE);
    }

    @Override
    public float getFloatProperty(String name) throws JMSException {
        return (float) getDoubleProperty(name);
    }

    @Override
    public double getDoubleProperty(String name) throws JMSException {
        Object value = properties.get(name);
        if (value instanceof Number number) {
            return number.doubleValue();
        }
        if (value instanceof String string) {
            try {
                return Double.parseDouble(string);
            } catch (NumberFormatException e) {
                throw new MessageFormatException("property " + name + " is no number");
            }
        }
        if (value == null) {
            throw new NullPointerException("no property " + name);
        }
        throw new MessageFormatException("property " + name + " is no number");
    }

    private long number(String name, long min, long max) throws JMSException {
        Object value = properties.get(name);
        long number;
        if (value instanceof Long || value instanceof Integer || value instanceof Short || value instanceof Byte) {
            number = ((Number) value).longValue();
        } else if (value instanceof String string) {
            try {
                number = Long.parseLong(string);
            } catch (NumberFormatException e) {
                throw new NumberFormatException("property " + name + " is no integer");
            }
        } else if (value == null) {
            throw new NumberFormatException("no property " + name);
        } else {
            throw new MessageFormatException("property " + name + " is no integer");
        }
        if (number < min || number > max) {
            throw new MessageFormatException("property " + name + " is out of range");
        }
        return number;
    }

    @Override
    public Enumeration<?> getPropertyNames() {
        return Collections.enumeration(properties.keySet());
    }

    @Override
    public void clearProperties() throws JMSException {
        throw readOnly();
    }

    @Override
    public void setBooleanProperty(String name, boolean value) throws JMSException {
        throw readOnly();
    }

    @Override
    public void setByteProperty(String name, byte value) throws JMSException {
        throw readOnly();
    }

    @Override
    public void setShortProperty(String name, short value) throws JMSException {
        throw readOnly();
    }

    @Override
    public void setIntProperty(String name, int value) throws JMSException {
        throw readOnly();
    }

    @Override
    public void setLongProperty(String name, long value) throws JMSException {
        throw readOnly();
    }

    @Override
    public void setFloatProperty(String name, float value) throws JMSException {
        throw readOnly();
    }

    @Override
    public void setDoubleProperty(String name, double value) throws JMSException {
        throw readOnly();
    }

    @Override
    public void setStringProperty(String name, String value) throws JMSException {
        throw readOnly();
    }

    @Override
    public void setObjectProperty(String name, Object value) throws JMSException {
        throw readOnly();
    }

    // --- headers: those of a message that reached its consumer once, from the inbox ------------------------------

    @Override
    public String getJMSMessageID() {
        return messageId;
    }

    @Override
    public void setJMSMessageID(String id) {
    }

    @Override
    public long getJMSTimestamp() {
        return 0;
    }

    @Override
    public void setJMSTimestamp(long timestamp) {
    }

    @Override
    public byte[] getJMSCorrelationIDAsBytes() {
        return null;
    }

    @Override
    public void setJMSCorrelationIDAsBytes(byte[] correlationID) {
    }

    @Override
    public void setJMSCorrelationID(String correlationID) {
    }

    @Override
    public String getJMSCorrelationID() {
        return null;
    }

    @Override
    public Destination getJMSReplyTo() {
        return null;
    }

    @Override
    public void setJMSReplyTo(Destination replyTo) {
    }

    @Override
    public Destination getJMSDestination() {
        return null;
    }

    @Override
    public void setJMSDestination(Destination destination) {
    }

    @Override
    public int getJMSDeliveryMode() {
        return jakarta.jms.DeliveryMode.PERSISTENT;
    }

    @Override
    public void setJMSDeliveryMode(int deliveryMode) {
    }

    @Override
    public boolean getJMSRedelivered() {
        return false;
    }

    @Override
    public void setJMSRedelivered(boolean redelivered) {
    }

    @Override
    public String getJMSType() {
        return null;
    }

    @Override
    public void setJMSType(String type) {
    }

    @Override
    public long getJMSExpiration() {
        return 0;
    }

    @Override
    public void setJMSExpiration(long expiration) {
    }

    @Override
    public long getJMSDeliveryTime() {
        return 0;
    }

    @Override
    public void setJMSDeliveryTime(long deliveryTime) {
    }

    @Override
    public int getJMSPriority() {
        return 4;
    }

    @Override
    public void setJMSPriority(int priority) {
    }

    @Override
    public void acknowledge() {
        // the inbox's transaction is what makes this message count
    }

    @Override
    public void clearBody() throws JMSException {
        throw readOnly();
    }

    @Override
    @SuppressWarnings("unchecked")
    public <T> T getBody(Class<T> c) throws JMSException {
        if (text == null) {
            return null;
        }
        if (!c.isAssignableFrom(String.class)) {
            throw new MessageFormatException("a text message's body is a String, not a " + c.getName());
        }
        return (T) text;
    }

    @Override
    @SuppressWarnings("rawtypes")
    public boolean isBodyAssignableTo(Class c) {
        return text == null || c.isAssignableFrom(String.class);
    }

    private static MessageNotWriteableException readOnly() {
        return new MessageNotWriteableException("a message applied in its turn is read-only");
    }
}
