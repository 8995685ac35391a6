package dev.outbox.internal.admin;

import dev.outbox.internal.ops.AdminRefusal;
import dev.outbox.internal.ops.repair.ParkedEvents;
import jakarta.annotation.security.RolesAllowed;
import jakarta.ejb.EJB;
import jakarta.enterprise.context.RequestScoped;
import jakarta.json.Json;
import jakarta.json.JsonArrayBuilder;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.DefaultValue;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.PUT;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;

import java.net.URI;
import java.net.URISyntaxException;

/**
 * Parked-event repair (R6.6): {@code GET /api/parked} lists them with why they parked, {@code GET
 * /api/events/{id}} shows one with its body, {@code PUT /api/parked/{id}} fixes its body or schema version, and
 * {@code POST /api/parked/{id}/resume} puts it back in line with the same event id. Changes need a reason and
 * are audited; above the person's approval threshold they wait for a second person (202, R9.4).
 */
@Path("/")
@Produces(MediaType.APPLICATION_JSON)
@Consumes(MediaType.APPLICATION_JSON)
// A CDI bean, so @EJB injection works on every server (WildFly's RESTEasy injects none into a plain resource)
@RequestScoped
public class ParkedEventsResource {

    @EJB
    ParkedEvents parked;

    @GET
    @Path("parked")
    @RolesAllowed({Roles.OPERATOR, Roles.APPROVER})
    public JsonObject list(@QueryParam("limit") @DefaultValue("100") int limit) {
        JsonArrayBuilder events = Json.createArrayBuilder();
        parked.list(AdminJson.limit(limit)).forEach(event -> events.add(AdminJson.event(event)));
        return Json.createObjectBuilder().add("parked", events).build();
    }

    @GET
    @Path("events/{eventId}")
    @RolesAllowed(Roles.OPERATOR)
    public JsonObject show(@PathParam("eventId") String eventId) {
        return AdminJson.event(parked.show(AdminJson.uuid("eventId", eventId)));
    }

    /** Body: {@code {"payload": {...}} or {"payloadRef": "https://..."}}, {@code "schemaVersion"}, {@code "reason"}. */
    @PUT
    @Path("parked/{eventId}")
    @RolesAllowed(Roles.OPERATOR)
    public Response fix(@PathParam("eventId") String eventId, String raw) {
        JsonObject body = AdminJson.body(raw);
        if (body == null) {
            throw new AdminRefusal(AdminRefusal.Kind.INVALID, "a repair needs a JSON body with payload or payloadRef,"
                    + " schemaVersion and reason");
        }
        JsonValue payload = body.get("payload");
        String json = null;
        if (payload != null && payload.getValueType() != JsonValue.ValueType.NULL) {
            // The body as the consumer will read it; EventValidation checks it is one JSON object within the limit.
            json = payload.getValueType() == JsonValue.ValueType.STRING ? AdminJson.text(body, "payload")
                    : payload.toString();
        }
        String reference = AdminJson.text(body, "payloadRef");
        URI payloadRef;
        try {
            payloadRef = reference == null ? null : new URI(reference);
        } catch (URISyntaxException e) {
            throw new AdminRefusal(AdminRefusal.Kind.INVALID, "payloadRef must be a URI, but was '" + reference + "'");
        }
        return answer(parked.fix(AdminJson.uuid("eventId", eventId), json, payloadRef,
                AdminJson.schemaVersion(body), AdminJson.text(body, "reason")));
    }

    /** Body: {@code {"reason": "..."}}. */
    @POST
    @Path("parked/{eventId}/resume")
    @RolesAllowed(Roles.OPERATOR)
    public Response resume(@PathParam("eventId") String eventId, String body) {
        return answer(parked.resume(AdminJson.uuid("eventId", eventId),
                AdminJson.text(AdminJson.body(body), "reason")));
    }

    /**
     * Done now: 200 with the event as it is after the change. Above the person's approval threshold (R9.4): 202 with
     * the request that waits for a second person ({@code POST /api/replays/{requestId}/approve}).
     */
    private static Response answer(ParkedEvents.Outcome outcome) {
        if (outcome.awaitsApproval()) {
            return Response.status(Response.Status.ACCEPTED).entity(AdminJson.decision(outcome.request())).build();
        }
        return Response.ok(AdminJson.event(outcome.event())).build();
    }
}
