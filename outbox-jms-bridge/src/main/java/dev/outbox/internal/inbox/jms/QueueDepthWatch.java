package dev.outbox.internal.inbox.jms;

import dev.outbox.internal.config.Settings;
import dev.outbox.internal.inbox.watch.ConsumerSource;
import dev.outbox.internal.inbox.watch.ConsumerWatch;
import dev.outbox.internal.transport.jms.JmsMessages;
import dev.outbox.jms.QueueWatch;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.jms.ConnectionFactory;
import jakarta.jms.JMSContext;
import jakarta.jms.JMSException;
import jakarta.jms.Queue;
import jakarta.jms.QueueBrowser;
import org.eclipse.microprofile.config.Config;
import org.eclipse.microprofile.config.ConfigProvider;

import javax.naming.InitialContext;
import javax.naming.NamingException;
import java.util.Enumeration;
import java.util.Optional;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The public {@link QueueWatch}: a consumer's queue depth for its liveness (R6.1), counted with a queue browser
 * through {@code outbox.jms.connection-factory} up to {@link QueueWatch#COUNT_LIMIT} messages, and the queue the
 * {@link ReleaseNudge} wakes the MDB on (R5.7).
 */
@ApplicationScoped
public class QueueDepthWatch implements QueueWatch {

    private static final Logger LOG = Logger.getLogger(QueueDepthWatch.class.getName());

    @Inject
    ConsumerWatch watch;

    @Inject
    ReleaseNudge nudge;

    @Override
    public void watch(String consumer, Queue queue, String selector) {
        Config config = ConfigProvider.getConfig();
        String name = Settings.JMS_CONNECTION_FACTORY.text(setting -> config.getOptionalValue(setting, String.class));
        ConnectionFactory factory;
        try {
            // Looked up here, on the application's start: health and metrics calls may run without its naming context.
            factory = (ConnectionFactory) new InitialContext().lookup(name);
        } catch (NamingException | ClassCastException e) {
            throw new IllegalStateException("setting " + Settings.JMS_CONNECTION_FACTORY.name() + " names no JMS "
                    + "connection factory here: " + name, e);
        }
        watch.watch(consumer, new Depth(factory, queue, selector));
        try {
            // R5.7: from now on, not from its first message, an idle consumer is nudged to release what can go on
            nudge.watched(consumer, queue, factory);
        } catch (RuntimeException notNow) {
            JmsMessages.WATCH_RELEASE_DEFERRED.log(LOG,
                    () -> "consumer " + consumer + ": waiting events released by a skip wait for its first"
                    + " message after this start (" + notNow.getClass().getName() + ")");
        }
    }

    /** The depth of one queue, counted on every read: nothing is held open between reads. */
    private record Depth(ConnectionFactory factory, Queue queue, String selector) implements ConsumerSource {

        @Override
        public Optional<Reading> read() {
            try (JMSContext context = factory.createContext();
                 QueueBrowser browser = context.createBrowser(queue, selector)) {
                Enumeration<?> messages = browser.getEnumeration();
                long count = 0;
                while (count < COUNT_LIMIT && messages.hasMoreElements()) {
                    messages.nextElement();
                    count++;
                }
                return Optional.of(Reading.waitingOnly(count)); // an MDB's progress is its own (InboxInterceptor)
            } catch (JMSException | RuntimeException e) {
                LOG.log(Level.FINE, "depth of " + describe() + " unknown now", e);
                return Optional.empty();
            }
        }

        @Override
        public String describe() {
            try {
                return "queue " + queue.getQueueName() + (selector == null ? "" : " (selector " + selector + ")");
            } catch (JMSException e) {
                return "queue " + queue;
            }
        }
    }
}
