package dev.outbox.jms;

import jakarta.enterprise.util.Nonbinding;
import jakarta.interceptor.InterceptorBinding;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Puts an MDB's {@code onMessage} behind the inbox (R5.1): the event is marked processed for this consumer first;
 * a duplicate is acknowledged without running the business code, and a failure rolls back the business change
 * and the mark together, so the broker redelivers (R5.3, R5.5).
 *
 * <p>The mark and the change commit in a local transaction of their own, and the message is acknowledged after
 * it: a crash in between only redelivers a duplicate the inbox absorbs. Put
 * {@code @TransactionAttribute(NOT_SUPPORTED)} on the MDB so the container opens no XA transaction around the
 * message at all: on Open Liberty 26.0.0.3 with the embedded engine, a server killed during such a two-phase
 * commit left a message in doubt that was never redelivered (the kill -9 soak found it).
 *
 * <p>A strict event that arrives before the versions it follows is stored and acknowledged, and applied by this
 * MDB's {@code onMessage} in its turn (R5.7). When events can go on while the MDB receives nothing (an operator
 * skipped a gap), the inbox sends it a message without an event, with only the property
 * {@code outboxRelease} set to the consumer's name, on the queue it reads: an MDB with a message selector must let it
 * through ({@code ... OR outboxRelease = 'shipping'}), or it applies them with its next message only.
 *
 * <pre>{@code
 * @MessageDriven(...)
 * @TransactionAttribute(TransactionAttributeType.NOT_SUPPORTED)
 * @InboxConsumer("shipping")
 * public class ShippingConsumer implements MessageListener { ... }
 * }</pre>
 */
@InterceptorBinding
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.TYPE, ElementType.METHOD})
public @interface InboxConsumer {

    /** The consumer's name, unique per database: the inbox key is (consumer, event id). */
    @Nonbinding
    String value();
}
