package ${package}.statements;

import dev.outbox.jms.QueueWatch;
import jakarta.annotation.Resource;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.event.Startup;
import jakarta.inject.Inject;
import jakarta.jms.Queue;

/**
 * Watches the statement consumer for stalls: /health/live goes DOWN naming "statements" when events wait on its
 * queue and it finishes none for outbox.health.consumer-stall. Without a watch the consumers' liveness check has
 * nothing to report; an MDB has no start of its own, so this bean starts it.
 */
@ApplicationScoped
public class StatementWatch {

    @Resource(lookup = "jms/OutboxEvents")
    Queue queue;

    @Inject
    QueueWatch queueWatch;

    void start(@Observes Startup startup) {
        queueWatch.watch(StatementConsumer.CONSUMER, queue);
    }
}
