package dev.outbox.internal.inbox.jms;

import dev.outbox.OutboxHeaders;
import dev.outbox.internal.config.Settings;
import dev.outbox.internal.inbox.InboxAttempt;
import dev.outbox.internal.inbox.ReleaseSweep;
import dev.outbox.internal.transport.jms.JmsMessages;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.jms.ConnectionFactory;
import jakarta.jms.DeliveryMode;
import jakarta.jms.Destination;
import jakarta.jms.JMSContext;
import jakarta.jms.JMSException;
import jakarta.jms.JMSRuntimeException;
import jakarta.jms.Message;
import jakarta.jms.Queue;
import jakarta.jms.Topic;
import org.eclipse.microprofile.config.ConfigProvider;

import javax.naming.InitialContext;
import javax.naming.NamingException;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.logging.Logger;

/**
 * R5.7 for MDB consumers: an MDB runs only when a message comes, so the waiting events whose turn came without one
 * (an operator's skip, a successor's recorded failure) would wait for the consumer's next message, however long that
 * takes. Every few seconds ({@link ReleaseSweep}) a consumer idle since its last sweep with such events gets a
 * message of its own on the queue it reads: no event, only {@link OutboxHeaders#RELEASE} naming it. The inbox
 * around its onMessage then sweeps instead of calling the bean (an MDB instance can only be called by the container,
 * inside a delivery). The nudge is non-persistent and expires: a lost one is sent again by the next round; a
 * consumer that answers none of three (a selector that keeps nudges out) is warned about once and asked once a
 * minute. Registered at the application's start where it watches the consumer ({@code QueueWatch.watch}), else at
 * the consumer's first delivery after start: until then its next message is its sweep.
 */
@ApplicationScoped
public class ReleaseNudge {

    private static final Logger LOG = Logger.getLogger(ReleaseNudge.class.getName());
    private static final long EXPIRES_MS = 30_000;
    private static final int UNANSWERED_BEFORE_BACKING_OFF = 3;
    private static final long BACKED_OFF_NANOS = TimeUnit.MINUTES.toNanos(1);
    private static final long RETRY_LOOKUP_NANOS = TimeUnit.MINUTES.toNanos(1);

    @Inject
    InboxAttempt attempt;

    @Inject
    ReleaseSweep sweep;

    private final Map<String, Nudged> consumers = new ConcurrentHashMap<>();
    /** Looked up at a delivery; kept once found. */
    private volatile ConnectionFactory factory;
    private volatile long lookupFailedAt;

    /** Where one consumer reads and how its nudges were answered. */
    private static final class Nudged {
        final Queue queue;
        long lastNudge;
        int unanswered;

        Nudged(Queue queue) {
            this.queue = queue;
        }
    }

    /**
     * Called on each delivery: where the consumer reads, so a nudge can reach it between messages. Only a queue:
     * on a topic every subscriber would get the nudge, consumers without the inbox included.
     */
    void delivered(String consumer, Message message) {
        Destination destination;
        try {
            destination = message.getJMSDestination();
        } catch (JMSException unreadable) {
            return;
        }
        if (!(destination instanceof Queue queue) || destination instanceof Topic) {
            return;
        }
        if (factory == null && System.nanoTime() - lookupFailedAt > RETRY_LOOKUP_NANOS) {
            factory = lookup(); // on the container's thread, where the component's names resolve
        }
        Nudged known = consumers.get(consumer);
        if (known == null || !known.queue.equals(queue)) {
            consumers.put(consumer, new Nudged(queue));
        }
        sweep.keep(consumer, () -> nudgeIfWanted(consumer));
    }

    /**
     * Called at the application's start by {@link dev.outbox.jms.QueueWatch}: the queue the consumer reads and a
     * connection factory, so a nudge reaches it before its first message after a restart (a skip made meanwhile).
     */
    public void watched(String consumer, Queue queue, ConnectionFactory connectionFactory) {
        if (factory == null) {
            factory = connectionFactory;
        }
        consumers.putIfAbsent(consumer, new Nudged(queue));
        sweep.keep(consumer, () -> nudgeIfWanted(consumer));
    }

    private void nudgeIfWanted(String consumer) {
        Nudged nudged = consumers.get(consumer);
        ConnectionFactory sender = factory;
        if (nudged == null || sender == null || !attempt.releaseWanted(consumer)) {
            return;
        }
        long now = System.nanoTime();
        synchronized (nudged) {
            if (nudged.lastNudge != 0) {
                Long swept = attempt.lastSweep(consumer);
                if (swept == null || swept - nudged.lastNudge < 0) {
                    nudged.unanswered++;
                } else {
                    nudged.unanswered = 0;
                }
            }
            if (nudged.unanswered == UNANSWERED_BEFORE_BACKING_OFF) {
                JmsMessages.RELEASE_UNANSWERED.log(LOG,
                        () -> "consumer " + consumer + " did not answer " + UNANSWERED_BEFORE_BACKING_OFF
                        + " requests to apply the waiting events whose turn came (a message selector without "
                        + OutboxHeaders.RELEASE + " = '" + consumer + "', or its deliveries are suspended); asking"
                        + " once a minute from now, and its next message applies them");
            }
            if (nudged.unanswered >= UNANSWERED_BEFORE_BACKING_OFF && now - nudged.lastNudge < BACKED_OFF_NANOS) {
                return;
            }
            nudged.lastNudge = now;
        }
        try (JMSContext context = sender.createContext()) {
            context.createProducer().setDeliveryMode(DeliveryMode.NON_PERSISTENT).setTimeToLive(EXPIRES_MS)
                    .setProperty(OutboxHeaders.RELEASE, consumer).send(nudged.queue, "");
            JmsMessages.RELEASE_ASKED.log(LOG,
                    () -> "consumer " + consumer + ": asked to apply the waiting events whose turn came while it"
                    + " received nothing (" + OutboxHeaders.RELEASE + ")");
        } catch (JMSRuntimeException e) {
            JmsMessages.RELEASE_NOT_ASKED.log(LOG,
                    () -> "consumer " + consumer + ": cannot ask it to apply the waiting events whose turn came ("
                    + e.getClass().getName() + "); its next message or the next round does");
        }
    }

    private ConnectionFactory lookup() {
        String name = Settings.JMS_CONNECTION_FACTORY.text(
                key -> ConfigProvider.getConfig().getOptionalValue(key, String.class));
        try {
            return (ConnectionFactory) new InitialContext().lookup(name);
        } catch (NamingException | ClassCastException e) {
            lookupFailedAt = System.nanoTime();
            JmsMessages.NO_CONNECTION_FACTORY.log(LOG,
                    () -> "no JMS connection factory at " + name + " (outbox.jms.connection-factory): an idle MDB"
                    + " consumer applies the waiting events whose turn came with its next message only (tried again"
                    + " in a minute)");
            return null;
        }
    }
}
