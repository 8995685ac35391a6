package dev.outbox.inbox.kafka;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.transaction.Transactional;

import java.util.function.Supplier;

/**
 * The consumer transaction of one delivery: the inbox mark and the business change commit or roll back together
 * (R5.3). A Reactive Messaging method runs with no transaction of its own, so this one always starts fresh;
 * any unchecked exception rolls it back.
 */
@ApplicationScoped
@Transactional(Transactional.TxType.REQUIRES_NEW)
public class InboxTransaction {

    public <T> T run(Supplier<T> work) {
        return work.get();
    }
}
