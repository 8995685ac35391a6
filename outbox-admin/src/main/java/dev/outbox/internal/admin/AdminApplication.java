package dev.outbox.internal.admin;

import jakarta.annotation.security.DeclareRoles;
import jakarta.ws.rs.ApplicationPath;
import jakarta.ws.rs.core.Application;

/**
 * The operators' REST API under {@code /outbox-admin/api}: parked-event repair (R6.6), replay (R9.2-R9.4) and
 * the audit trail. Every call needs a login; the roles decide what it may do.
 */
@ApplicationPath("/api")
@DeclareRoles({Roles.OPERATOR, Roles.APPROVER})
public class AdminApplication extends Application {
}
