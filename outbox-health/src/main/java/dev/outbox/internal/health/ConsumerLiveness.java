package dev.outbox.internal.health;

import dev.outbox.internal.inbox.watch.ConsumerState;
import dev.outbox.internal.inbox.watch.ConsumerWatch;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.HealthCheckResponseBuilder;
import org.eclipse.microprofile.health.Liveness;

/**
 * Liveness ({@code /health/live}): no inbox consumer of this instance is stalled (R6.1). A consumer is
 * stalled when records have waited for it at its source for {@code outbox.health.consumer-stall} and it finished
 * none meanwhile: Open Liberty's Reactive Messaging channel that stopped for good after a broker outage
 * (CWMRX1002E) looks exactly like that, and only a restart brings it back, which is what a DOWN liveness asks the
 * platform for. The data names each consumer with what waits for it ({@code -1}: its source could not be read).
 */
@Liveness
@ApplicationScoped
public class ConsumerLiveness implements HealthCheck {

    @Inject
    ConsumerWatch watch;

    @Override
    public HealthCheckResponse call() {
        HealthCheckResponseBuilder response = HealthCheckResponse.named("outbox-consumers").up();
        for (ConsumerState state : watch.states()) {
            response.withData("waiting." + state.consumer(), state.waiting().orElse(-1));
            if (state.sinceProgress() != null) {
                response.withData("secondsSinceProgress." + state.consumer(), state.sinceProgress().toSeconds());
            }
            if (state.stalled()) {
                response.down().withData("stalled." + state.consumer(), state.waiting().getAsLong()
                        + " waiting on " + state.source() + ", none finished for " + watch.stallWindow().toSeconds()
                        + " s");
            }
        }
        return response.build();
    }
}
