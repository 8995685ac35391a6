package dev.outbox.internal.inbox.jms;

import dev.outbox.jms.InboxConsumer;
import dev.outbox.EventId;
import dev.outbox.Ordering;
import dev.outbox.Inbox;
import dev.outbox.internal.config.Settings;
import dev.outbox.InboxedEvent;
import dev.outbox.internal.inbox.InboxAttempt;
import dev.outbox.OutboxHeaders;
import jakarta.annotation.Priority;
import jakarta.inject.Inject;
import jakarta.interceptor.AroundInvoke;
import jakarta.interceptor.Interceptor;
import jakarta.interceptor.InvocationContext;
import jakarta.jms.JMSException;
import jakarta.jms.Message;

import java.lang.reflect.Method;
import java.util.logging.Logger;

/** The inbox around {@code MessageListener.onMessage}: see {@link InboxConsumer}. */
@InboxConsumer("")
@Interceptor
@Priority(Interceptor.Priority.LIBRARY_BEFORE + 100)
public class InboxInterceptor {

    private static final Logger LOG = Logger.getLogger(InboxInterceptor.class.getName());

    @Inject
    InboxAttempt attempt;

    @AroundInvoke
    Object aroundMessage(InvocationContext invocation) throws Exception {
        Object[] parameters = invocation.getParameters();
        if (parameters.length != 1 || !(parameters[0] instanceof Message message)) {
            return invocation.proceed();
        }
        String consumer = consumerOf(invocation.getMethod());
        String id = message.getStringProperty(OutboxHeaders.EVENT_ID);
        if (id == null) {
            // Not an outbox message: it cannot be deduplicated. Acknowledge it rather than loop on it.
            LOG.severe(() -> "consumer " + consumer + " got message " + messageId(message) + " without "
                    + OutboxHeaders.EVENT_ID + "; acknowledged without processing");
            return null;
        }
        EventId eventId;
        try {
            eventId = EventId.parse(id);
        } catch (IllegalArgumentException e) {
            LOG.severe(() -> "consumer " + consumer + " got message " + messageId(message) + " with a malformed "
                    + OutboxHeaders.EVENT_ID + "; acknowledged without processing");
            return null;
        }
        Long version = message.propertyExists(OutboxHeaders.AGGREGATE_VERSION)
                ? message.getLongProperty(OutboxHeaders.AGGREGATE_VERSION) : null;
        InboxedEvent event = new InboxedEvent(eventId, message.getStringProperty(OutboxHeaders.EVENT_TYPE),
                message.getStringProperty(OutboxHeaders.AGGREGATE_TYPE),
                message.getStringProperty(OutboxHeaders.AGGREGATE_ID), version, null,
                Ordering.ofHeader(message.getStringProperty(OutboxHeaders.ORDERING)), null);
        // R5.3, R5.5 without XA: the mark and the change commit in one local transaction of their own (whatever
        // the MDB's transaction attribute), and the broker gets its acknowledgement only after that commit. A crash
        // in between redelivers a duplicate that the inbox absorbs; nothing is left in doubt between two
        // resource managers.
        Inbox.Receipt receipt = attempt.attempt(consumer, event, messageId(message), () -> invocation.proceed());
        if (receipt == Inbox.Receipt.HELD) {
            // R5.7: the mark rolled back; fail the delivery after a pause so the broker redelivers it later.
            Thread.sleep(Settings.HOLD_PAUSE.toMillis());
            throw new IllegalStateException("consumer " + consumer + " holds " + event.describe()
                    + " until its earlier versions arrive");
        }
        return null;
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
