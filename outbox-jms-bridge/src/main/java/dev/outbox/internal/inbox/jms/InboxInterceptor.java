package dev.outbox.internal.inbox.jms;

import dev.outbox.jms.InboxConsumer;
import dev.outbox.EventId;
import dev.outbox.Ordering;
import dev.outbox.Inbox;
import dev.outbox.internal.inbox.InboxTransaction;
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
    Inbox inbox;

    @Inject
    InboxTransaction transaction;

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
        Ordering ordering = Ordering.ofHeader(message.getStringProperty(OutboxHeaders.ORDERING));
        // R5.3, R5.5 without XA: the mark and the change commit in one local transaction of their own (whatever
        // the MDB's transaction attribute), and the broker gets its acknowledgement only after that commit. A crash
        // in between redelivers a duplicate that the inbox absorbs; nothing is left in doubt between two
        // resource managers.
        Inbox.Receipt receipt;
        try {
            receipt = transaction.run(() -> {
                Inbox.Receipt decided = inbox.receive(consumer, eventId, aggregateType, aggregateId, version,
                        ordering);
                if (decided == Inbox.Receipt.HELD) {
                    throw new Held();
                }
                if (decided == Inbox.Receipt.FIRST) {
                    try {
                        invocation.proceed();
                    } catch (RuntimeException e) {
                        throw e;
                    } catch (Exception e) {
                        throw new CheckedFailure(e);
                    }
                }
                return decided;
            });
        } catch (Held held) {
            // R5.7: the mark rolled back; fail the delivery after a pause so the broker redelivers it later.
            Thread.sleep(Inbox.HOLD_PAUSE.toMillis());
            throw new IllegalStateException("consumer " + consumer + " holds " + eventId + " of " + aggregateType
                    + "/" + aggregateId + " at version " + version + " until its earlier versions arrive");
        } catch (CheckedFailure failure) {
            throw (Exception) failure.getCause();
        }
        if (receipt == Inbox.Receipt.DUPLICATE) {
            LOG.info(() -> "consumer " + consumer + " absorbed duplicate " + eventId + " of " + aggregateType
                    + "/" + aggregateId + " at version " + version + ", broker id " + messageId(message));
        }
        return null;
    }

    /** Rolls the local transaction back when the inbox holds an event (R5.7). */
    private static final class Held extends RuntimeException {
        Held() {
            super(null, null, false, false);
        }
    }

    /** Carries a checked exception of the business method out of the transaction, which it rolls back. */
    private static final class CheckedFailure extends RuntimeException {
        CheckedFailure(Exception cause) {
            super(cause);
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
