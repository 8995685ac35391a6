package dev.outbox.inbox.jms;

import dev.outbox.event.EventId;
import dev.outbox.inbox.Inbox;
import dev.outbox.transport.OutboxHeaders;
import jakarta.annotation.Priority;
import jakarta.annotation.Resource;
import jakarta.inject.Inject;
import jakarta.interceptor.AroundInvoke;
import jakarta.interceptor.Interceptor;
import jakarta.interceptor.InvocationContext;
import jakarta.jms.JMSException;
import jakarta.jms.Message;
import jakarta.transaction.TransactionSynchronizationRegistry;

import java.lang.reflect.Method;
import java.util.logging.Logger;

/** The inbox around {@code MessageListener.onMessage}: see {@link InboxConsumer}. */
@InboxConsumer("")
@Interceptor
@Priority(Interceptor.Priority.LIBRARY_BEFORE + 100)
public class InboxInterceptor {

    private static final Logger LOG = Logger.getLogger(InboxInterceptor.class.getName());

    /** How long one held delivery waits before it rolls back for redelivery. */
    static final long HOLD_PAUSE_MS = 250;

    @Inject
    Inbox inbox;

    @Resource
    TransactionSynchronizationRegistry transactions;

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
        String aggregateType = message.getStringProperty(OutboxHeaders.AGGREGATE_TYPE);
        String aggregateId = message.getStringProperty(OutboxHeaders.AGGREGATE_ID);
        Long version = message.propertyExists(OutboxHeaders.AGGREGATE_VERSION)
                ? message.getLongProperty(OutboxHeaders.AGGREGATE_VERSION) : null;
        switch (inbox.receive(consumer, eventId, aggregateType, aggregateId, version)) {
            case DUPLICATE -> {
                LOG.info(() -> "consumer " + consumer + " absorbed duplicate " + eventId + " of " + aggregateType
                        + "/" + aggregateId + " at version " + version + ", broker id " + messageId(message));
                return null;
            }
            case STALE -> {
                return null;
            }
            case HELD -> {
                // R5.7: wait briefly, then roll back: the mark disappears and the broker redelivers. The pause
                // paces redeliveries so the gap window, not the redelivery count, decides.
                Thread.sleep(HOLD_PAUSE_MS);
                transactions.setRollbackOnly();
                return null;
            }
            default -> {
                return invocation.proceed();
            }
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
