package dev.outbox.internal.ops.metrics;

import dev.outbox.internal.config.Settings;
import dev.outbox.internal.ops.OperatorRoles;
import dev.outbox.internal.persistence.Backlog;
import dev.outbox.internal.persistence.RowCounts;
import jakarta.annotation.security.DeclareRoles;
import jakarta.annotation.security.RolesAllowed;
import jakarta.ejb.Stateless;
import jakarta.ejb.TransactionAttribute;
import jakarta.ejb.TransactionAttributeType;
import jakarta.inject.Inject;
import org.eclipse.microprofile.config.Config;
import org.eclipse.microprofile.config.ConfigProvider;

import java.time.Duration;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;

/**
 * The backlog for people (the operator console, issue 22): the same two grouped queries as the gauges (R6.1), read
 * fresh on each call, and the age readiness allows each event type (R6.4), so the page shows what health judges.
 */
@Stateless
@DeclareRoles({OperatorRoles.OPERATOR, OperatorRoles.APPROVER})
public class BacklogReport {

    @Inject
    RowCounts rows;

    @RolesAllowed({OperatorRoles.OPERATOR, OperatorRoles.APPROVER})
    @TransactionAttribute(TransactionAttributeType.NOT_SUPPORTED)
    public Backlog now() {
        return rows.backlog(OffsetDateTime.now(ZoneOffset.UTC));
    }

    /** outbox.health.max-pending-age for this type: readiness turns DOWN past it. */
    @RolesAllowed({OperatorRoles.OPERATOR, OperatorRoles.APPROVER})
    public Duration allowedAge(String eventType) {
        Config config = ConfigProvider.getConfig();
        return Settings.HEALTH_MAX_PENDING_AGE.duration(name -> config.getOptionalValue(name, String.class), eventType);
    }
}
