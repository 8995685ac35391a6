package dev.outbox.transport.jms;

import dev.outbox.config.SettingReader;
import dev.outbox.event.OutboxEvent;
import dev.outbox.transport.OutboundEvent;
import dev.outbox.transport.OutboxHeaders;
import dev.outbox.transport.SendResult;
import dev.outbox.transport.Transport;
import jakarta.annotation.PostConstruct;
import jakarta.annotation.Resource;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.jms.ConnectionFactory;
import jakarta.jms.DeliveryMode;
import jakarta.jms.Destination;
import jakarta.jms.JMSContext;
import jakarta.jms.JMSException;
import jakarta.jms.JMSProducer;
import jakarta.jms.JMSRuntimeException;
import jakarta.jms.MessageFormatRuntimeException;
import jakarta.jms.TextMessage;
import org.eclipse.microprofile.config.Config;
import org.eclipse.microprofile.config.ConfigProvider;

import javax.naming.InitialContext;
import javax.naming.NamingException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.logging.Logger;

/**
 * Delivers to JMS through the platform's default connection factory. Messages are persistent; the publisher
 * calls with no JTA transaction, and each batch goes in one local JMS transaction whose commit is the broker's
 * acknowledgement. The JMS message id is the broker id recorded on the row (R4.2, R4.7).
 *
 * <p>Destinations are JNDI names: {@code outbox.jms.destination} for every event type (default
 * {@code java:app/jms/OutboxEvents}), or {@code outbox.jms.destination.<EventType>} for one type. The
 * application defines them, typically with {@code @JMSDestinationDefinition}.
 */
@ApplicationScoped
public class JmsTransport implements Transport {

    private static final Logger LOG = Logger.getLogger(JmsTransport.class.getName());
    static final String DEFAULT_DESTINATION = "java:app/jms/OutboxEvents";

    @Resource(lookup = "java:comp/DefaultJMSConnectionFactory")
    ConnectionFactory connectionFactory;

    private Config config;
    private int maxMessageBytes;
    private final Map<String, Destination> destinations = new ConcurrentHashMap<>();

    @PostConstruct
    void configure() {
        config = ConfigProvider.getConfig();
        SettingReader reader = new SettingReader(name -> config.getOptionalValue(name, String.class));
        maxMessageBytes = reader.integer("outbox.jms.max-message-bytes", 1_048_576, 1, Integer.MAX_VALUE);
    }

    @Override
    public String name() {
        return "jms";
    }

    /**
     * Sends the batch in one local JMS transaction: the broker syncs once per batch instead of once per
     * message, and the commit is its acknowledgement of every message in it. A failed commit makes every
     * message of the batch an unknown outcome: retried with the same event ids.
     */
    @Override
    public List<SendResult> send(List<OutboundEvent> events) {
        List<SendResult> results = new ArrayList<>(events.size());
        try (JMSContext context = connectionFactory.createContext(JMSContext.SESSION_TRANSACTED)) {
            JMSProducer producer = context.createProducer().setDeliveryMode(DeliveryMode.PERSISTENT);
            for (OutboundEvent event : events) {
                results.add(sendOne(context, producer, event));
            }
            if (results.stream().anyMatch(r -> r instanceof SendResult.Delivered)) {
                try {
                    context.commit();
                } catch (JMSRuntimeException e) {
                    LOG.warning(() -> "JMS commit failed for a batch of " + events.size() + ": " + e.getClass().getName());
                    results.replaceAll(r -> r instanceof SendResult.Delivered
                            ? new SendResult.UnknownOutcome(e.getClass().getSimpleName()) : r);
                }
            }
        } catch (JMSRuntimeException e) {
            // No connection at all (engine down): nothing of the rest was sent, nothing of this batch committed.
            LOG.warning(() -> "JMS unavailable for a batch of " + events.size() + ": " + e.getClass().getName());
            results.replaceAll(r -> r instanceof SendResult.Delivered
                    ? new SendResult.UnknownOutcome(e.getClass().getSimpleName()) : r);
            while (results.size() < events.size()) {
                results.add(new SendResult.TransientFailure(e.getClass().getSimpleName()));
            }
        }
        return results;
    }

    @Override
    public String destinationOf(OutboxEvent event) {
        return "jms:" + destinationName(event);
    }

    private String destinationName(OutboxEvent event) {
        return config.getOptionalValue("outbox.jms.destination." + event.eventType(), String.class)
                .or(() -> config.getOptionalValue("outbox.jms.destination", String.class))
                .orElse(DEFAULT_DESTINATION);
    }

    private SendResult sendOne(JMSContext context, JMSProducer producer, OutboundEvent outbound) {
        OutboxEvent event = outbound.event();
        String body = event.payload() == null ? "" : event.payload();
        long size = body.getBytes(StandardCharsets.UTF_8).length;
        if (size > maxMessageBytes) {
            // R4.5: a deterministic failure; retrying cannot make the message smaller.
            return new SendResult.PermanentFailure("MessageTooLarge");
        }
        // Read per send, not cached: an operator can re-point a destination in server.xml while the server runs.
        String destinationName = destinationName(event);
        Destination destination;
        try {
            destination = destinations.computeIfAbsent(destinationName, JmsTransport::lookup);
        } catch (IllegalStateException e) {
            // A missing destination is a configuration or broker problem, fixable without touching the event.
            LOG.warning(() -> "no JMS destination at " + destinationName + " for " + outbound.describe());
            return new SendResult.TransientFailure("DestinationNotFound");
        }
        try {
            TextMessage message = context.createTextMessage(body);
            message.setJMSType(event.eventType());
            message.setStringProperty(OutboxHeaders.EVENT_ID, outbound.id().toString());
            message.setStringProperty(OutboxHeaders.EVENT_TYPE, event.eventType());
            message.setStringProperty(OutboxHeaders.AGGREGATE_TYPE, event.aggregateType());
            message.setStringProperty(OutboxHeaders.AGGREGATE_ID, event.aggregateId());
            message.setLongProperty(OutboxHeaders.AGGREGATE_VERSION, event.aggregateVersion());
            message.setIntProperty(OutboxHeaders.SCHEMA_VERSION, event.schemaVersion());
            if (event.payloadReference() != null) {
                message.setStringProperty(OutboxHeaders.PAYLOAD_REFERENCE, event.payloadReference().toString());
            }
            producer.send(destination, message);
            return new SendResult.Delivered(message.getJMSMessageID(), null, null);
        } catch (MessageFormatRuntimeException e) {
            return new SendResult.PermanentFailure(e.getClass().getSimpleName());
        } catch (JMSRuntimeException | JMSException e) {
            // The send may have reached the broker: retry with the same event id; the inbox absorbs a twin.
            destinations.remove(destinationName);
            return new SendResult.UnknownOutcome(e.getClass().getSimpleName());
        }
    }

    private static Destination lookup(String jndiName) {
        try {
            return InitialContext.doLookup(jndiName);
        } catch (NamingException e) {
            throw new IllegalStateException("no JMS destination at " + jndiName, e);
        }
    }
}
