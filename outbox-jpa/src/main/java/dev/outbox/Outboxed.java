package dev.outbox;

import jakarta.interceptor.InterceptorBinding;

import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks a business command whose events are recorded through {@link OutboxRecorder}. The method joins the
 * caller's JTA transaction or starts one, like {@code @Transactional(REQUIRED)}; the events it records are
 * written before it returns, so an outbox failure rolls its business change back (R1.2, R3.1).
 *
 * <p>Rollback follows {@code @Transactional}: an unchecked exception rolls back (and the recorded events are
 * dropped), a checked exception does not (and the events are written with the business change).
 */
@Inherited
@InterceptorBinding
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.TYPE, ElementType.METHOD})
public @interface Outboxed {
}
