package dev.outbox.internal.transport.jms;

import dev.outbox.OutboxEvent;
import dev.outbox.OutboxHeaders;
import dev.outbox.internal.config.InvalidSettingException;
import dev.outbox.spi.OutboundEvent;
import dev.outbox.spi.SendDeadline;
import dev.outbox.spi.SendResult;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.jms.ConnectionFactory;
import jakarta.jms.DeliveryMode;
import jakarta.jms.Destination;
import jakarta.jms.JMSContext;
import jakarta.jms.JMSException;
import jakarta.jms.JMSProducer;
import jakarta.jms.JMSRuntimeException;
import jakarta.jms.Message;
import jakarta.jms.MessageFormatRuntimeException;
import jakarta.jms.TextMessage;
import jakarta.transaction.Transactional;

import javax.naming.InitialContext;
import javax.naming.NamingException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import java.util.logging.Logger;

/**
 * One batch's sends in one JTA transaction of its own, so the commit is the broker's acknowledgement of all of
 * them. A JTA transaction rather than a transacted JMSContext: inside a Jakarta EE server a JMSContext may only
 * be transacted through JTA (WildFly's resource adapter refuses {@code SESSION_TRANSACTED} without one; Open
 * Liberty ignores it), and with the broker its only resource the transaction commits in one phase. The publisher
 * holds no database lock meanwhile (R4.2): its claim committed before.
 */
@ApplicationScoped
class JmsBatch {

    private static final Logger LOG = Logger.getLogger(JmsBatch.class.getName());

    private final Map<String, Object> lookups = new ConcurrentHashMap<>();

    /**
     * Sends {@code events} in order, adding one result per event to {@code results} as it goes, so a caller whose
     * commit failed still knows which the broker had accepted.
     */
    @Transactional(Transactional.TxType.REQUIRES_NEW)
    void send(String connectionFactory, List<OutboundEvent> events, SendDeadline deadline,
              Function<OutboxEvent, String> destinationOf, Function<OutboundEvent, Map<String, String>> cloudEventOf,
              int maxMessageBytes, List<SendResult> results) {
        ConnectionFactory factory = (ConnectionFactory) lookups.computeIfAbsent(connectionFactory, JmsBatch::lookup);
        try (JMSContext context = factory.createContext()) {
            JMSProducer producer = context.createProducer().setDeliveryMode(DeliveryMode.PERSISTENT);
            sendUntil(events, deadline, results, event -> {
                Map<String, String> cloudEvent;
                try {
                    cloudEvent = cloudEventOf.apply(event);
                } catch (InvalidSettingException e) {
                    // A value changed to a bad one while the server runs (start-up refuses one): this event waits
                    // for the fix, the rest of the batch goes.
                    return new SendResult.TransientFailure(e.getClass().getSimpleName());
                }
                return sendOne(context, producer, event, destinationOf.apply(event.event()), cloudEvent,
                        maxMessageBytes);
            });
        }
    }

    /**
     * R4.3: a JMS send has no bound of its own (a broker under flow control blocks it), so the batch stops at its
     * lease deadline: the messages sent so far commit, the rest wait for the next run as transient failures.
     */
    static void sendUntil(List<OutboundEvent> events, SendDeadline deadline, List<SendResult> results,
                          Function<OutboundEvent, SendResult> sendOne) {
        for (OutboundEvent event : events) {
            results.add(deadline.passed() ? deadline.missed() : sendOne.apply(event));
        }
    }

    private SendResult sendOne(JMSContext context, JMSProducer producer, OutboundEvent outbound,
                               String destinationName, Map<String, String> cloudEvent, int maxMessageBytes) {
        OutboxEvent event = outbound.event();
        String body = event.payload() == null ? "" : event.payload();
        if (body.getBytes(StandardCharsets.UTF_8).length > maxMessageBytes) {
            // R4.5: a deterministic failure; retrying cannot make the message smaller.
            return new SendResult.PermanentFailure("MessageTooLarge");
        }
        Destination destination;
        try {
            destination = (Destination) lookups.computeIfAbsent(destinationName, JmsBatch::lookup);
        } catch (IllegalStateException e) {
            // A missing destination is a configuration or broker problem, fixable without touching the event.
            JmsMessages.NO_DESTINATION.log(LOG,
                    () -> "no JMS destination at " + destinationName + " for " + outbound.describe());
            return new SendResult.TransientFailure("DestinationNotFound");
        }
        try {
            TextMessage message = context.createTextMessage(body);
            label(message, outbound, cloudEvent);
            producer.send(destination, message);
            return new SendResult.Delivered(message.getJMSMessageID(), null, null);
        } catch (MessageFormatRuntimeException e) {
            return new SendResult.PermanentFailure(e.getClass().getSimpleName());
        } catch (JMSRuntimeException | JMSException e) {
            // The send may have reached the broker: retry with the same event id; the inbox absorbs a twin.
            lookups.remove(destinationName);
            return new SendResult.UnknownOutcome(e.getClass().getSimpleName());
        }
    }

    /**
     * The message's type and properties: the event's ids and versions, and its trace context (R6.7) if it has one.
     *
     * @param cloudEvent the CloudEvents attributes to add as {@code cloudEvents_<name>} properties (the prefix the
     *                   AMQP binding gives them, in the form a JMS property name allows), or none
     */
    static void label(Message message, OutboundEvent outbound, Map<String, String> cloudEvent) throws JMSException {
        OutboxEvent event = outbound.event();
        message.setJMSType(event.eventType());
        message.setStringProperty(OutboxHeaders.EVENT_ID, outbound.id().toString());
        message.setStringProperty(OutboxHeaders.EVENT_TYPE, event.eventType());
        message.setStringProperty(OutboxHeaders.AGGREGATE_TYPE, event.aggregateType());
        message.setStringProperty(OutboxHeaders.AGGREGATE_ID, event.aggregateId());
        message.setLongProperty(OutboxHeaders.AGGREGATE_VERSION, event.aggregateVersion());
        message.setIntProperty(OutboxHeaders.SCHEMA_VERSION, event.schemaVersion());
        message.setStringProperty(OutboxHeaders.ORDERING, outbound.ordering().header());
        if (event.payloadReference() != null) {
            message.setStringProperty(OutboxHeaders.PAYLOAD_REFERENCE, event.payloadReference().toString());
        }
        // R5.7: what a consumer receiving only some of the aggregate's types waits for
        if (outbound.previousVersions() != null) {
            message.setStringProperty(OutboxHeaders.PREVIOUS_VERSIONS, outbound.previousVersions());
        }
        // R6.7: the recording span's context, as W3C names it; an event recorded untraced carries none.
        if (outbound.trace() != null) {
            message.setStringProperty(OutboxHeaders.TRACEPARENT, outbound.trace().traceParent());
            if (outbound.trace().traceState() != null) {
                message.setStringProperty(OutboxHeaders.TRACESTATE, outbound.trace().traceState());
            }
        }
        for (Map.Entry<String, String> attribute : cloudEvent.entrySet()) {
            message.setStringProperty("cloudEvents_" + attribute.getKey(), attribute.getValue());
        }
    }

    private static Object lookup(String jndiName) {
        try {
            return InitialContext.doLookup(jndiName);
        } catch (NamingException e) {
            throw new IllegalStateException("no JMS resource at " + jndiName, e);
        }
    }
}
