package dev.outbox.internal.admin;

import dev.outbox.internal.ops.AdminRefusal;
import dev.outbox.internal.ops.replay.Replay;
import dev.outbox.internal.ops.replay.ReplayDecision;
import dev.outbox.internal.ops.replay.ReplaySelection;
import jakarta.annotation.security.RolesAllowed;
import jakarta.ejb.EJB;
import jakarta.enterprise.context.RequestScoped;
import jakarta.json.Json;
import jakarta.json.JsonArray;
import jakarta.json.JsonArrayBuilder;
import jakarta.json.JsonObject;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.DefaultValue;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.SecurityContext;

import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/**
 * Replay (R9.2-R9.4). {@code POST /api/replays} with a selection is a dry run unless the body says
 * {@code "dryRun": false}: then it runs at once (201) or, above {@code outbox.replay.approval-threshold} events,
 * waits (202) until another person approves it with {@code POST /api/replays/{id}/approve}.
 *
 * <p>Selection: {@code {"eventIds": ["..."]}} or {@code {"from": "2026-12-03T10:00:00Z", "to": "...",
 * "eventType": "OrderPaid"}} (delivered events recorded in [from, to); eventType optional), or
 * {@code {"parkedWith": "TopicAuthorizationException", "eventType": "OrderPaid"}}: a bulk resume of the events
 * parked with that error class (eventType optional), under the same dry run, approval and audit rules.
 */
@Path("replays")
@Produces(MediaType.APPLICATION_JSON)
@Consumes(MediaType.APPLICATION_JSON)
// A CDI bean, so @EJB injection works on every server (WildFly's RESTEasy injects none into a plain resource)
@RequestScoped
public class ReplayResource {

    @EJB
    Replay replay;

    @Context
    SecurityContext caller;

    @POST
    @RolesAllowed({Roles.OPERATOR, Roles.APPROVER})
    public Response replay(String raw) {
        JsonObject body = AdminJson.body(raw);
        ReplaySelection selection = selection(body);
        boolean dryRun = body.get("dryRun") != JsonValue.FALSE;
        if (dryRun) {
            return Response.ok(AdminJson.plan(replay.preview(selection))).build();
        }
        if (!caller.isUserInRole(Roles.OPERATOR)) {
            throw new AdminRefusal(AdminRefusal.Kind.FORBIDDEN, "only the role " + Roles.OPERATOR
                    + " requests a replay; an approver approves one somebody else requested");
        }
        ReplayDecision decision = replay.request(selection, AdminJson.text(body, "reason"));
        return Response.status(decision.state().equals("EXECUTED") ? Response.Status.CREATED : Response.Status.ACCEPTED)
                .entity(AdminJson.decision(decision)).build();
    }

    /** {@code GET /api/replays?limit=100}: the requests waiting for a second person, oldest first (R9.4). */
    @GET
    @RolesAllowed({Roles.OPERATOR, Roles.APPROVER})
    public JsonObject waiting(@QueryParam("limit") @DefaultValue("100") int limit) {
        JsonArrayBuilder waiting = Json.createArrayBuilder();
        replay.waiting(AdminJson.limit(limit)).forEach(request -> waiting.add(AdminJson.decision(request)));
        return Json.createObjectBuilder().add("waiting", waiting).build();
    }

    @GET
    @Path("{requestId}")
    @RolesAllowed({Roles.OPERATOR, Roles.APPROVER})
    public JsonObject show(@PathParam("requestId") String requestId) {
        return AdminJson.decision(replay.show(AdminJson.uuid("requestId", requestId)));
    }

    @POST
    @Path("{requestId}/approve")
    @RolesAllowed(Roles.APPROVER)
    public JsonObject approve(@PathParam("requestId") String requestId) {
        return AdminJson.decision(replay.approve(AdminJson.uuid("requestId", requestId)));
    }

    /** Body: {@code {"reason": "..."}}. */
    @POST
    @Path("{requestId}/reject")
    @RolesAllowed(Roles.APPROVER)
    public JsonObject reject(@PathParam("requestId") String requestId, String body) {
        return AdminJson.decision(replay.reject(AdminJson.uuid("requestId", requestId),
                AdminJson.text(AdminJson.body(body), "reason")));
    }

    private static ReplaySelection selection(JsonObject body) {
        if (body == null) {
            throw new AdminRefusal(AdminRefusal.Kind.INVALID, "a replay needs a JSON body with eventIds, from and to, or parkedWith");
        }
        List<UUID> ids = new ArrayList<>();
        JsonValue listed = body.get("eventIds");
        if (listed instanceof JsonArray array) {
            for (JsonValue id : array) {
                if (!(id instanceof JsonString text)) {
                    throw new AdminRefusal(AdminRefusal.Kind.INVALID, "eventIds must hold event ids as strings");
                }
                ids.add(AdminJson.uuid("eventIds", text.getString()));
            }
        } else if (listed != null && listed.getValueType() != JsonValue.ValueType.NULL) {
            throw new AdminRefusal(AdminRefusal.Kind.INVALID, "eventIds must be a JSON array of event ids");
        }
        OffsetDateTime from = ReplaySelection.time("from", AdminJson.text(body, "from"));
        OffsetDateTime to = ReplaySelection.time("to", AdminJson.text(body, "to"));
        if (to != null && to.isAfter(OffsetDateTime.now())) {
            // A range that ends in the past selects the same events at approval as at preview.
            throw new AdminRefusal(AdminRefusal.Kind.INVALID, "to must not be in the future, but was " + to);
        }
        return new ReplaySelection(ids, from, to, AdminJson.text(body, "eventType"), AdminJson.text(body, "parkedWith"));
    }
}
