package dev.outbox.internal.health;

import dev.outbox.internal.transport.TopicRisks;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.HealthCheckResponseBuilder;
import org.eclipse.microprofile.health.Readiness;

/**
 * Readiness ({@code /health/ready}) names the topics the publisher found able to lose what a consumer still needs
 * (R4.7, R5.7; {@link TopicRisks}), one data item per topic and risk. It stays UP: the instance serves and publishes
 * all the same, and taking it out of the load balancer would not make the topic safer. The
 * {@code outbox_topic_at_risk} gauge is what an alert watches.
 */
@Readiness
@ApplicationScoped
public class TopicReadiness implements HealthCheck {

    @Inject
    TopicRisks risks;

    @Override
    public HealthCheckResponse call() {
        HealthCheckResponseBuilder response = HealthCheckResponse.named("outbox-topics").up();
        risks.found().forEach(found -> response.withData(found.risk() + "." + found.topic(), found.why()));
        return response.build();
    }
}
