package dev.outbox.internal.inbox.jms;

import dev.outbox.EventId;
import dev.outbox.InboxedEvent;
import dev.outbox.Ordering;
import dev.outbox.OutboxHeaders;
import dev.outbox.TraceContext;
import dev.outbox.internal.config.Settings;
import dev.outbox.internal.failure.Causes;
import dev.outbox.internal.inbox.InboxAttempt;
import dev.outbox.internal.inbox.Received;
import dev.outbox.internal.inbox.watch.ConsumerWatch;
import dev.outbox.internal.persistence.OutboxDataSource;
import dev.outbox.internal.transport.jms.JmsMessages;
import dev.outbox.jms.InboxConsumer;
import jakarta.annotation.Priority;
import jakarta.inject.Inject;
import jakarta.interceptor.AroundInvoke;
import jakarta.interceptor.Interceptor;
import jakarta.interceptor.InvocationContext;
import jakarta.jms.JMSException;
import jakarta.jms.Message;
import org.eclipse.microprofile.config.ConfigProvider;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.logging.Logger;

/** The inbox around {@code MessageListener.onMessage}: see {@link InboxConsumer}. */
@InboxConsumer("")
@Interceptor
@Priority(Interceptor.Priority.LIBRARY_BEFORE + 100)
public class InboxInterceptor {

    private static final Logger LOG = Logger.getLogger(InboxInterceptor.class.getName());
    /**
     * How long a delivery that failed for a database outage waits for the database before it fails: under the
     * default transaction timeout (120 s), and with the broker's deliveries (outbox.inbox.broker-max-deliveries,
     * 10 by default) it rides out an outage of ten minutes.
     */
    static final Duration OUTAGE_PATIENCE = Duration.ofSeconds(60);
    private static final long OUTAGE_PROBE_MS = 1_000;

    @Inject
    InboxAttempt attempt;

    @Inject
    OutboxDataSource database;

    @Inject
    ConsumerWatch watch;

    @Inject
    ReleaseNudge nudge;

    @AroundInvoke
    Object aroundMessage(InvocationContext invocation) throws Exception {
        Object[] parameters = invocation.getParameters();
        if (parameters.length != 1 || !(parameters[0] instanceof Message message)) {
            return invocation.proceed();
        }
        String consumer = consumerOf(invocation.getMethod());
        if (message.propertyExists(OutboxHeaders.RELEASE)) {
            // R5.7: no event, a nudge to apply the waiting events whose turn came while this consumer was idle
            if (consumer.equals(message.getStringProperty(OutboxHeaders.RELEASE))) {
                attempt.releaseNow(consumer, turn -> applyInItsTurn(invocation, null, turn));
            }
            return null;
        }
        try {
            nudge.delivered(consumer, message);
        } catch (RuntimeException notNow) {
            // R5.7's idle release is a convenience around the delivery: it never fails one
            LOG.fine(() -> "consumer " + consumer + ": idle release not registered (" + notNow + ")");
        }
        String id = message.getStringProperty(OutboxHeaders.EVENT_ID);
        if (id == null) {
            // Not an outbox message: it cannot be deduplicated. Acknowledge it rather than loop on it.
            JmsMessages.NO_EVENT_ID.log(LOG,
                    () -> "consumer " + consumer + " got message " + messageId(message) + " without "
                    + OutboxHeaders.EVENT_ID + "; acknowledged without processing");
            watch.progressed(consumer);
            return null;
        }
        EventId eventId;
        try {
            eventId = EventId.parse(id);
        } catch (IllegalArgumentException e) {
            JmsMessages.MALFORMED_EVENT_ID.log(LOG,
                    () -> "consumer " + consumer + " got message " + messageId(message) + " with a malformed "
                    + OutboxHeaders.EVENT_ID + "; acknowledged without processing");
            watch.progressed(consumer);
            return null;
        }
        Long version = message.propertyExists(OutboxHeaders.AGGREGATE_VERSION)
                ? message.getLongProperty(OutboxHeaders.AGGREGATE_VERSION) : null;
        Integer schemaVersion = message.propertyExists(OutboxHeaders.SCHEMA_VERSION)
                ? message.getIntProperty(OutboxHeaders.SCHEMA_VERSION) : null;
        InboxedEvent event = new InboxedEvent(eventId, message.getStringProperty(OutboxHeaders.EVENT_TYPE),
                message.getStringProperty(OutboxHeaders.AGGREGATE_TYPE),
                message.getStringProperty(OutboxHeaders.AGGREGATE_ID), version, schemaVersion,
                Ordering.ofHeader(message.getStringProperty(OutboxHeaders.ORDERING)), TurnMessages.body(message),
                TraceContext.read(message.getStringProperty(OutboxHeaders.TRACEPARENT),
                        message.getStringProperty(OutboxHeaders.TRACESTATE)).orElse(null));
        Received received = new Received(event, messageId(message), TurnMessages.otherProperties(message),
                Received.previousVersions(message.getStringProperty(OutboxHeaders.PREVIOUS_VERSIONS)));
        // R5.3, R5.5 without XA: the mark and the change commit in one local transaction of their own (whatever
        // the MDB's transaction attribute), and the broker gets its acknowledgement only after that commit. A crash
        // in between redelivers a duplicate that the inbox absorbs; nothing is left in doubt between two
        // resource managers. An early strict event is stored by that transaction and acknowledged too (R5.7).
        try {
            boolean[] proceeded = {false};
            attempt.attempt(consumer, received, turn -> {
                if (turn == received && !proceeded[0]) {
                    proceeded[0] = true;
                    invocation.proceed();
                } else {
                    // An event that waited, or this one again after a successor failed in its turn: proceed() is
                    // spent, so the bean's method is called directly.
                    applyInItsTurn(invocation, turn == received ? message : null, turn);
                }
            });
        } catch (Exception e) {
            watch.progressed(consumer); // a failed attempt is an attempt: the consumer is alive (ConsumerWatch)
            if (Causes.isDatabaseOutage(e)) {
                try {
                    awaitDatabase(consumer, event, lastDelivery(message));
                } catch (InterruptedException stopping) {
                    Thread.currentThread().interrupt();
                    e.addSuppressed(stopping);
                }
            }
            throw e;
        }
        watch.progressed(consumer);
        return null;
    }

    /**
     * An event that waited for its turn (R5.7), applied by this MDB's own onMessage in the inbox's transaction: the
     * bean instance is called directly (its interceptors have run already, this one included), with the message
     * as it arrived, rebuilt in memory ({@link TurnMessage}: no JMS session, so nothing joins the transaction).
     */
    private static void applyInItsTurn(InvocationContext invocation, Message received, Received turn)
            throws Exception {
        try {
            invocation.getMethod().invoke(invocation.getTarget(), received != null ? received : new TurnMessage(turn));
        } catch (InvocationTargetException e) {
            if (e.getCause() instanceof Exception failure) {
                throw failure;
            }
            if (e.getCause() instanceof Error error) {
                throw error;
            }
            throw e;
        }
    }

    /**
     * R5.5: a database outage is retried, not parked. The broker's redelivery budget is for changes that fail; spent
     * on a restarting database within a second, it would move the message to the exception destination, its effect
     * never applied. So a delivery that failed for an outage fails only once the database answers again, and the
     * redelivery finds it back: after at most {@link #OUTAGE_PATIENCE} while the message has deliveries to spare,
     * and without a limit on its last one. The probe runs a
     * statement, not just a connect, so the server's pool sees a stale connection fail and can drop it.
     */
    private void awaitDatabase(String consumer, InboxedEvent event, boolean lastDelivery) throws InterruptedException {
        JmsMessages.DATABASE_UNREACHABLE.log(LOG,
                () -> "consumer " + consumer + " cannot reach its database for " + event.describe()
                + "; the delivery fails once the database answers again (" + (lastDelivery
                ? "its last delivery: no time limit" : "at most " + OUTAGE_PATIENCE.toSeconds() + " s")
                + "), so the broker's redeliveries are not spent on the outage");
        long deadline = System.nanoTime() + OUTAGE_PATIENCE.toNanos();
        while (lastDelivery || System.nanoTime() < deadline) {
            try (Connection connection = database.connect(); Statement probe = connection.createStatement()) {
                probe.execute("SELECT 1");
                return;
            } catch (SQLException stillAway) {
                watch.waitingForDatabase(consumer);
                Thread.sleep(OUTAGE_PROBE_MS);
            }
        }
    }

    /** Whether the broker gives this message up if this delivery fails (JMSXDeliveryCount, set by JMS 2.0 brokers). */
    private static boolean lastDelivery(Message message) {
        try {
            int maxDeliveries = Settings.INBOX_BROKER_MAX_DELIVERIES.integer(
                    name -> ConfigProvider.getConfig().getOptionalValue(name, String.class));
            return message.propertyExists("JMSXDeliveryCount")
                    && message.getIntProperty("JMSXDeliveryCount") >= maxDeliveries;
        } catch (JMSException | RuntimeException unreadable) {
            return false;
        }
    }

    private static String consumerOf(Method method) {
        InboxConsumer binding = method.getAnnotation(InboxConsumer.class);
        if (binding == null) {
            binding = method.getDeclaringClass().getAnnotation(InboxConsumer.class);
        }
        if (binding == null || binding.value().isBlank()) {
            throw new IllegalStateException("@InboxConsumer on " + method.getDeclaringClass().getName()
                    + " needs a consumer name");
        }
        return binding.value();
    }

    private static String messageId(Message message) {
        try {
            return message.getJMSMessageID();
        } catch (JMSException e) {
            return "?";
        }
    }
}
