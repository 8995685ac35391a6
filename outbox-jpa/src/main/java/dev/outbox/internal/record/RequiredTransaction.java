package dev.outbox.internal.record;

import dev.outbox.Outboxed;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.transaction.Transactional;

import java.util.concurrent.Callable;

/**
 * Joins the caller's JTA transaction or starts one, with the platform's own {@code @Transactional(REQUIRED)}
 * semantics, so {@link Outboxed} behaves exactly like it on every server.
 */
@ApplicationScoped
@Transactional(Transactional.TxType.REQUIRED)
public class RequiredTransaction {

    public <T> T call(Callable<T> work) throws Exception {
        return work.call();
    }
}
