package dev.outbox.internal.admin;

import dev.outbox.internal.ops.AdminRefusal;
import jakarta.json.Json;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.ext.ExceptionMapper;
import jakarta.ws.rs.ext.Provider;

/** A refused action becomes its HTTP status and a JSON message saying what was wrong. */
@Provider
public class AdminRefusalMapper implements ExceptionMapper<AdminRefusal> {

    @Override
    public Response toResponse(AdminRefusal refusal) {
        Response.Status status = switch (refusal.kind()) {
            case NOT_FOUND -> Response.Status.NOT_FOUND;
            case CONFLICT -> Response.Status.CONFLICT;
            case INVALID -> Response.Status.BAD_REQUEST;
            case FORBIDDEN -> Response.Status.FORBIDDEN;
        };
        return Response.status(status).type(MediaType.APPLICATION_JSON)
                .entity(Json.createObjectBuilder().add("error", refusal.getMessage()).build()).build();
    }
}
