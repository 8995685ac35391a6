package dev.outbox.internal.inbox.jms;

import dev.outbox.OutboxHeaders;
import dev.outbox.internal.config.Settings;
import dev.outbox.internal.inbox.InboxAttempt;
import dev.outbox.internal.inbox.ReleaseSweep;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.jms.ConnectionFactory;
import jakarta.jms.DeliveryMode;
import jakarta.jms.Destination;
import jakarta.jms.JMSContext;
import jakarta.jms.JMSException;
import jakarta.jms.JMSRuntimeException;
import jakarta.jms.Message;
import org.eclipse.microprofile.config.ConfigProvider;

import javax.naming.InitialContext;
import javax.naming.NamingException;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.logging.Logger;

/**
 * R5.7 for MDB consumers: an MDB runs only when a message comes, so the waiting events whose turn came without one
 * (an operator's skip, a successor's recorded failure) would wait for the consumer's next message, however long that
 * takes. Every few seconds ({@link ReleaseSweep}) a consumer idle since its last sweep with such events gets a
 * message of its own on the destination it reads: no event, only {@link OutboxHeaders#RELEASE} naming it. The inbox
 * around its onMessage then sweeps instead of calling the bean (an MDB instance can only be called by the container,
 * inside a delivery). The nudge is non-persistent and expires: a lost one is sent again by the next round.
 */
@ApplicationScoped
public class ReleaseNudge {

    private static final Logger LOG = Logger.getLogger(ReleaseNudge.class.getName());
    private static final long EXPIRES_MS = 30_000;

    @Inject
    InboxAttempt attempt;

    @Inject
    ReleaseSweep sweep;

    private final Map<String, Destination> destinations = new ConcurrentHashMap<>();
    /** Looked up at the first delivery; empty when there is none to send with (then nothing is nudged). */
    private volatile Optional<ConnectionFactory> factory;

    /** Called on each delivery: where the consumer reads, so a nudge can reach it between messages. */
    void delivered(String consumer, Message message) {
        Destination destination;
        try {
            destination = message.getJMSDestination();
        } catch (JMSException unreadable) {
            return;
        }
        if (destination == null) {
            return;
        }
        if (factory == null) {
            factory = lookup(); // on the container's thread, where the component's names resolve
        }
        if (destinations.put(consumer, destination) == null) {
            sweep.keep(consumer, () -> nudgeIfWanted(consumer));
        }
    }

    private void nudgeIfWanted(String consumer) {
        Destination destination = destinations.get(consumer);
        if (destination == null || factory == null || factory.isEmpty() || !attempt.releaseWanted(consumer)) {
            return;
        }
        try (JMSContext context = factory.get().createContext()) {
            context.createProducer().setDeliveryMode(DeliveryMode.NON_PERSISTENT).setTimeToLive(EXPIRES_MS)
                    .setProperty(OutboxHeaders.RELEASE, consumer).send(destination, "");
            LOG.fine(() -> "consumer " + consumer + ": asked to apply the waiting events whose turn came");
        } catch (JMSRuntimeException e) {
            LOG.warning(() -> "consumer " + consumer + ": cannot ask it to apply the waiting events whose turn came ("
                    + e.getClass().getName() + "); its next message or the next round does");
        }
    }

    private static Optional<ConnectionFactory> lookup() {
        String name = Settings.JMS_CONNECTION_FACTORY.text(
                key -> ConfigProvider.getConfig().getOptionalValue(key, String.class));
        try {
            return Optional.of((ConnectionFactory) new InitialContext().lookup(name));
        } catch (NamingException | ClassCastException e) {
            LOG.warning(() -> "no JMS connection factory at " + name + " (outbox.jms.connection-factory): an idle MDB"
                    + " consumer applies the waiting events whose turn came with its next message only");
            return Optional.empty();
        }
    }
}
