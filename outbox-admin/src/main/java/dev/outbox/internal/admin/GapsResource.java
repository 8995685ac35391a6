package dev.outbox.internal.admin;

import dev.outbox.internal.ops.AdminRefusal;
import dev.outbox.internal.ops.gaps.ConsumerGaps;
import jakarta.annotation.security.RolesAllowed;
import jakarta.ejb.EJB;
import jakarta.enterprise.context.RequestScoped;
import jakarta.json.Json;
import jakarta.json.JsonArrayBuilder;
import jakarta.json.JsonNumber;
import jakarta.json.JsonObject;
import jakarta.json.JsonObjectBuilder;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.DefaultValue;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;

/**
 * Consumers' gaps and forks (R5.7, R7.7): {@code GET /api/gaps} lists the aggregates whose consumers wait for
 * missing versions, and the forks parked as conflicts; {@code POST /api/gaps/skip} ends a gap without the missing
 * versions, with a reason, audited.
 */
@Path("gaps")
@Produces(MediaType.APPLICATION_JSON)
@Consumes(MediaType.APPLICATION_JSON)
@RequestScoped
public class GapsResource {

    @EJB
    ConsumerGaps gaps;

    @GET
    @RolesAllowed({Roles.OPERATOR, Roles.APPROVER})
    public JsonObject list(@QueryParam("limit") @DefaultValue("100") int limit) {
        JsonArrayBuilder waiting = Json.createArrayBuilder();
        gaps.gaps(AdminJson.limit(limit)).forEach(gap -> waiting.add(Json.createObjectBuilder()
                .add("consumer", gap.consumer())
                .add("aggregateType", gap.aggregateType())
                .add("aggregateId", gap.aggregateId())
                .add("appliedThrough", gap.highWater())
                .add("missingFrom", gap.highWater() + 1)
                .add("missingTo", gap.firstWaiting() - 1)
                .add("firstWaiting", gap.firstWaiting())
                .add("waitingEvents", gap.waitingEvents())
                .add("waitingSince", gap.waitingSince().toString())
                .add("failures", gap.failures())));
        JsonArrayBuilder conflicts = Json.createArrayBuilder();
        gaps.conflicts(AdminJson.limit(limit)).forEach(conflict -> {
            JsonObjectBuilder row = Json.createObjectBuilder()
                    .add("consumer", conflict.consumer())
                    .add("eventId", conflict.eventId().toString())
                    .add("aggregateType", conflict.aggregateType())
                    .add("aggregateId", conflict.aggregateId())
                    .add("aggregateVersion", conflict.version())
                    .add("eventType", String.valueOf(conflict.eventType()));
            if (conflict.appliedEventId() == null) {
                row.addNull("appliedEventId");
            } else {
                row.add("appliedEventId", conflict.appliedEventId().toString());
            }
            conflicts.add(row);
        });
        return Json.createObjectBuilder().add("gaps", waiting).add("conflicts", conflicts).build();
    }

    /** Body: {@code {"consumer", "aggregateType", "aggregateId", "throughVersion", "reason"}}. */
    @POST
    @Path("skip")
    @RolesAllowed(Roles.OPERATOR)
    public JsonObject skip(String raw) {
        JsonObject body = AdminJson.body(raw);
        if (body == null || !(body.get("throughVersion") instanceof JsonNumber through)) {
            throw new AdminRefusal(AdminRefusal.Kind.INVALID,
                    "a skip needs a JSON body with consumer, aggregateType, aggregateId, throughVersion and reason");
        }
        long from = gaps.skip(AdminJson.text(body, "consumer"), AdminJson.text(body, "aggregateType"),
                AdminJson.text(body, "aggregateId"), through.longValueExact(), AdminJson.text(body, "reason"));
        return Json.createObjectBuilder().add("skippedFrom", from).add("skippedThrough", through.longValueExact())
                .build();
    }
}
