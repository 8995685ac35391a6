package dev.outbox.internal.transport.jms;

import dev.outbox.OutboxEvent;
import dev.outbox.internal.config.Settings;
import dev.outbox.internal.failure.Causes;
import dev.outbox.internal.transport.CloudEventAttributes;
import dev.outbox.spi.OutboundEvent;
import dev.outbox.spi.SendDeadline;
import dev.outbox.spi.SendResult;
import dev.outbox.spi.Transport;
import jakarta.annotation.PostConstruct;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import org.eclipse.microprofile.config.Config;
import org.eclipse.microprofile.config.ConfigProvider;

import javax.naming.InitialContext;
import javax.naming.NamingException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.logging.Logger;

/**
 * Delivers to JMS through the platform's default connection factory. Messages are persistent; each batch goes
 * in one JTA transaction of its own ({@link JmsBatch}), whose commit is the broker's acknowledgement of every
 * message in it. The JMS message id is the broker id recorded on the row (R4.2, R4.7).
 *
 * <p>Destinations are JNDI names: {@code outbox.jms.destination} for every event type (default
 * {@code java:app/jms/OutboxEvents}), or {@code outbox.jms.destination.<EventType>} for one type. The
 * application defines them, typically with {@code @JMSDestinationDefinition}. The connection factory is
 * {@code outbox.jms.connection-factory} (default {@code java:comp/DefaultJMSConnectionFactory}, which both Open
 * Liberty and WildFly bind).
 */
@ApplicationScoped
public class JmsTransport implements Transport {

    private static final Logger LOG = Logger.getLogger(JmsTransport.class.getName());

    @Inject
    JmsBatch batch;

    private Config config;
    private CloudEventAttributes cloudEvents;
    private int maxMessageBytes;
    private String connectionFactory;
    private PersistenceCheck persistence;

    @PostConstruct
    void configure() {
        config = ConfigProvider.getConfig();
        cloudEvents = new CloudEventAttributes(this::setting);
        maxMessageBytes = Settings.JMS_MAX_MESSAGE_BYTES.integer(this::setting);
        connectionFactory = Settings.JMS_CONNECTION_FACTORY.text(this::setting);
        // R4.7: at the publisher's start, so a factory that may lose acknowledged messages stops the application;
        // one not bound yet is checked before the first send that finds it
        persistence = new PersistenceCheck(connectionFactory, JmsTransport::boundAt,
                Settings.JMS_REQUIRE_ASSURED_PERSISTENCE.flag(this::setting));
        persistence.atStart();
    }

    /** The object bound at the JNDI name, or null while none is (the first send then names the missing factory). */
    private static Object boundAt(String name) {
        try {
            return InitialContext.doLookup(name);
        } catch (NamingException e) {
            return null;
        }
    }

    @Override
    public String name() {
        return "jms";
    }

    /**
     * Sends the batch in one transaction: the broker syncs once per batch instead of once per message, and the
     * commit is its acknowledgement of every message in it. A failed commit, or no connection at all, makes
     * every message the broker had accepted an unknown outcome and the rest a transient failure: all retried
     * with the same event ids.
     */
    @Override
    public List<SendResult> send(List<OutboundEvent> events, SendDeadline deadline) {
        List<SendResult> results = new ArrayList<>(events.size());
        if (!persistence.allowsSend()) {
            events.forEach(event -> results.add(new SendResult.TransientFailure("PersistenceNotAssured")));
            return results;
        }
        try {
            batch.send(connectionFactory, events, deadline, this::destinationName, cloudEvents::of, maxMessageBytes,
                    results);
        } catch (RuntimeException e) {
            // No connection (engine down), or the commit failed: nothing of this batch is known to be on the broker.
            // The broker's message names the cause; it never holds a payload (R6.3).
            JmsMessages.SEND_FAILED.log(LOG,
                    () -> "JMS send failed for a batch of " + events.size() + " (" + results.size()
                    + " handed to the broker): " + e.getClass().getName() + ": " + rootMessage(e));
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

    /** Read per send, not cached: an operator can re-point a destination while the server runs. */
    private String destinationName(OutboxEvent event) {
        return Settings.JMS_DESTINATION.text(this::setting, event.eventType());
    }

    private Optional<String> setting(String name) {
        return config.getOptionalValue(name, String.class);
    }

    private static String rootMessage(Throwable e) {
        Throwable root = Causes.root(e);
        return root == e ? String.valueOf(e.getMessage()) : e.getMessage() + " / " + root.getClass().getSimpleName()
                + ": " + root.getMessage();
    }
}
