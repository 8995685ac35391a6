package dev.outbox.internal.health;

import dev.outbox.internal.config.Settings;
import dev.outbox.internal.persistence.OutboxDataSource;
import dev.outbox.internal.persistence.RowCounts;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import org.eclipse.microprofile.config.Config;
import org.eclipse.microprofile.config.ConfigProvider;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.HealthCheckResponseBuilder;
import org.eclipse.microprofile.health.Readiness;

import java.time.Duration;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;

/**
 * Readiness ({@code /health/ready}): the outbox database answers, and no event type's oldest pending event is
 * older than its allowed lag (R6.4): {@code outbox.health.max-pending-age} (ISO-8601, default PT5M), or
 * {@code outbox.health.max-pending-age.<EventType>} for one type. The data names each late type and its age.
 */
@Readiness
@ApplicationScoped
public class BacklogReadiness implements HealthCheck {


    @Inject
    RowCounts rows;

    @Override
    public HealthCheckResponse call() {
        Config config = ConfigProvider.getConfig();
        Function<String, Optional<String>> source = name -> config.getOptionalValue(name, String.class);
        // A bad value fails every call (readiness DOWN), also while the backlog is empty: never silently UP.
        Settings.HEALTH_MAX_PENDING_AGE.duration(source);
        HealthCheckResponseBuilder response = HealthCheckResponse.named("outbox-backlog").up();
        OffsetDateTime now = OffsetDateTime.now(ZoneOffset.UTC);
        try {
            for (Map.Entry<String, OffsetDateTime> oldest : rows.oldestPendingByType().entrySet()) {
                String type = oldest.getKey();
                Duration age = Duration.between(oldest.getValue(), now);
                Duration limit = Settings.HEALTH_MAX_PENDING_AGE.duration(source, type);
                response.withData("oldestPendingSeconds." + type, age.toSeconds());
                if (age.compareTo(limit) > 0) {
                    response.down().withData("late." + type, "oldest pending is " + age.toSeconds()
                            + " s old, allowed " + limit.toSeconds() + " s");
                }
            }
        } catch (RuntimeException e) {
            return HealthCheckResponse.named("outbox-backlog").down()
                    .withData("error", OutboxDataSource.failureName(e)).build();
        }
        return response.build();
    }
}
