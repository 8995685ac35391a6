package dev.outbox.internal.inbox;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.transaction.Transactional;

import java.util.function.Supplier;

/**
 * The consumer transaction of one delivery: the inbox mark and the business change commit or roll back together
 * (R5.3), in a local transaction of their own, and the message is acknowledged only after it committed (R5.5).
 * Kafka consumers and MDBs without a container transaction run in it; any unchecked exception rolls it back.
 */
@ApplicationScoped
@Transactional(Transactional.TxType.REQUIRES_NEW)
public class InboxTransaction {

    public <T> T run(Supplier<T> work) {
        return work.get();
    }
}
