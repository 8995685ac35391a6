package dev.outbox.internal.admin;

import jakarta.annotation.security.RolesAllowed;
import jakarta.enterprise.context.RequestScoped;
import jakarta.json.Json;
import jakarta.json.JsonArrayBuilder;
import jakarta.json.JsonObject;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.SecurityContext;

/**
 * {@code GET /api/me}: who is logged in and with which roles, so the console offers only what the API would allow
 * (the API still refuses the rest).
 */
@Path("me")
@Produces(MediaType.APPLICATION_JSON)
@RequestScoped
public class CallerResource {

    @Context
    SecurityContext caller;

    @GET
    @RolesAllowed({Roles.OPERATOR, Roles.APPROVER})
    public JsonObject me() {
        JsonArrayBuilder roles = Json.createArrayBuilder();
        for (String role : new String[] {Roles.OPERATOR, Roles.APPROVER}) {
            if (caller.isUserInRole(role)) {
                roles.add(role);
            }
        }
        return Json.createObjectBuilder().add("user", caller.getUserPrincipal().getName()).add("roles", roles).build();
    }
}
