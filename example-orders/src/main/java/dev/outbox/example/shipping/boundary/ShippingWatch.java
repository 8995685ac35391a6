package dev.outbox.example.shipping.boundary;

import dev.outbox.jms.QueueWatch;
import jakarta.annotation.Resource;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.event.Startup;
import jakarta.inject.Inject;
import jakarta.jms.Queue;

/**
 * Watches the shipping MDB for stalls: liveness goes DOWN naming "shipping" when events wait on its queue and it
 * finishes none for {@code outbox.health.consumer-stall}. An MDB has no start of its own, so this bean starts it.
 */
@ApplicationScoped
public class ShippingWatch {

    @Resource(lookup = "java:app/jms/OutboxEvents")
    Queue queue;

    @Inject
    QueueWatch queueWatch;

    void start(@Observes Startup startup) {
        queueWatch.watch(ShippingConsumer.CONSUMER, queue);
    }
}
