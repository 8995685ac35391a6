package dev.outbox.example.benchmark.control;

import dev.outbox.example.orders.control.OrderVersions;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.transaction.Transactional;

/**
 * The benchmark's baseline (B1): {@code Orders.note}'s business step ({@link OrderVersions#advance}) in
 * a transaction, without recording its event. The difference between the two is what the outbox costs a
 * business transaction.
 */
@ApplicationScoped
public class UnrecordedNote {

    @Inject
    OrderVersions versions;

    @Transactional
    public long note(String orderId) {
        return versions.advance(orderId);
    }
}
