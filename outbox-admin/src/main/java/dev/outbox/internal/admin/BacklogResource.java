package dev.outbox.internal.admin;

import dev.outbox.internal.ops.metrics.BacklogReport;
import dev.outbox.internal.persistence.Backlog;
import jakarta.annotation.security.RolesAllowed;
import jakarta.ejb.EJB;
import jakarta.enterprise.context.RequestScoped;
import jakarta.json.Json;
import jakarta.json.JsonArrayBuilder;
import jakarta.json.JsonObject;
import jakarta.json.JsonObjectBuilder;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;

import java.util.Map;

/**
 * {@code GET /api/backlog}: per event type the pending count, the oldest pending age against the age readiness
 * allows, parked events and failing ones by error class (R6.1, R6.2, R6.4), for the console's backlog view.
 */
@Path("backlog")
@Produces(MediaType.APPLICATION_JSON)
// A CDI bean, so @EJB injection works on every server (WildFly's RESTEasy injects none into a plain resource)
@RequestScoped
public class BacklogResource {

    @EJB
    BacklogReport report;

    @GET
    @RolesAllowed({Roles.OPERATOR, Roles.APPROVER})
    public JsonObject backlog() {
        Backlog backlog = report.now();
        JsonArrayBuilder types = Json.createArrayBuilder();
        for (String type : backlog.eventTypes()) {
            JsonObjectBuilder failing = Json.createObjectBuilder();
            backlog.failingByClass().getOrDefault(type, Map.of()).forEach(failing::add);
            types.add(Json.createObjectBuilder()
                    .add("eventType", type)
                    .add("pending", backlog.pending().getOrDefault(type, 0L))
                    .add("oldestPendingSeconds", backlog.oldestPendingAge(type).toMillis() / 1000.0)
                    .add("allowedAgeSeconds", report.allowedAge(type).toSeconds())
                    .add("parked", backlog.parked().getOrDefault(type, 0L))
                    .add("failing", failing));
        }
        return Json.createObjectBuilder().add("readAt", backlog.readAt().toString()).add("types", types).build();
    }
}
