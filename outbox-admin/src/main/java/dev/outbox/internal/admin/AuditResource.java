package dev.outbox.internal.admin;

import dev.outbox.internal.ops.audit.AuditTrail;
import jakarta.annotation.security.RolesAllowed;
import jakarta.ejb.EJB;
import jakarta.enterprise.context.RequestScoped;
import jakarta.json.Json;
import jakarta.json.JsonArrayBuilder;
import jakarta.json.JsonObject;
import jakarta.ws.rs.DefaultValue;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;

/** {@code GET /api/audit[?eventId=...][&limit=100]}: who did what and when, newest first (R6.6, R9.2). */
@Path("audit")
@Produces(MediaType.APPLICATION_JSON)
// A CDI bean, so @EJB injection works on every server (WildFly's RESTEasy injects none into a plain resource)
@RequestScoped
public class AuditResource {

    @EJB
    AuditTrail trail;

    @GET
    @RolesAllowed({Roles.OPERATOR, Roles.APPROVER})
    public JsonObject recent(@QueryParam("eventId") String eventId, @QueryParam("actor") String actor,
                             @QueryParam("limit") @DefaultValue("100") int limit) {
        JsonArrayBuilder entries = Json.createArrayBuilder();
        trail.recent(eventId == null ? null : AdminJson.uuid("eventId", eventId),
                actor == null || actor.isBlank() ? null : actor, AdminJson.limit(limit))
                .forEach(entry -> entries.add(AdminJson.audit(entry)));
        return Json.createObjectBuilder().add("entries", entries).build();
    }
}
