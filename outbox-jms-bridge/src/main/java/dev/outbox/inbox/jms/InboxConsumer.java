package dev.outbox.inbox.jms;

import jakarta.enterprise.util.Nonbinding;
import jakarta.interceptor.InterceptorBinding;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Puts an MDB's {@code onMessage} behind the inbox (R5.1): inside the MDB's transaction the event is marked
 * processed for this consumer first; a duplicate is acknowledged without running the business code, and a
 * failure rolls back the business change and the mark together, so the broker redelivers (R5.3, R5.5).
 *
 * <pre>{@code
 * @MessageDriven(...)
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
