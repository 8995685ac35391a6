package dev.outbox.internal.health;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.Liveness;

import java.time.Duration;
import java.time.Instant;

/**
 * Liveness ({@code /health/live}): this instance's publisher finished a run within twenty timer intervals (and
 * at least a minute). A run stuck in a send never ends, and that is what this catches; a disabled publisher is
 * reported up, with {@code active=false}.
 */
@Liveness
@ApplicationScoped
public class PublisherLiveness implements HealthCheck {

    @Inject
    PublisherHeartbeat publisher;

    @Override
    public HealthCheckResponse call() {
        Duration since = Duration.between(publisher.lastRunEnded(), Instant.now());
        Duration limit = publisher.interval().multipliedBy(20);
        if (limit.compareTo(Duration.ofMinutes(1)) < 0) {
            limit = Duration.ofMinutes(1);
        }
        boolean stuck = publisher.active() && since.compareTo(limit) > 0;
        return HealthCheckResponse.named("outbox-publisher").status(!stuck)
                .withData("active", publisher.active())
                .withData("secondsSinceLastRun", since.toSeconds())
                .build();
    }
}
