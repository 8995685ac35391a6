package dev.outbox.example.orders.boundary;

import dev.outbox.DatabaseOutage;
import dev.outbox.DuplicateEventVersionException;
import dev.outbox.InvalidEventException;
import jakarta.json.Json;
import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.ext.ExceptionMapper;
import jakarta.ws.rs.ext.Provider;

import java.util.UUID;
import java.util.logging.Level;
import java.util.logging.Logger;

/** Turns command failures into JSON error responses: {@code {"error": "..."}}. */
public final class CommandErrors {

    private CommandErrors() {
    }

    static Response json(Response.Status status, String message) {
        return Response.status(status).type(MediaType.APPLICATION_JSON)
                .entity(Json.createObjectBuilder().add("error", message).build()).build();
    }

    @Provider
    public static class InvalidOrder implements ExceptionMapper<InvalidOrderException> {
        @Override
        public Response toResponse(InvalidOrderException e) {
            return json(Response.Status.BAD_REQUEST, e.getMessage());
        }
    }

    /** The event built from the request broke an outbox rule (an oversized note, say): the client's input. */
    @Provider
    public static class InvalidEvent implements ExceptionMapper<InvalidEventException> {
        @Override
        public Response toResponse(InvalidEventException e) {
            return json(Response.Status.BAD_REQUEST, e.getMessage());
        }
    }

    @Provider
    public static class NotFound implements ExceptionMapper<OrderNotFoundException> {
        @Override
        public Response toResponse(OrderNotFoundException e) {
            return json(Response.Status.NOT_FOUND, e.getMessage());
        }
    }

    @Provider
    public static class Conflict implements ExceptionMapper<OrderConflictException> {
        @Override
        public Response toResponse(OrderConflictException e) {
            return json(Response.Status.CONFLICT, e.getMessage());
        }
    }

    /** Two commands raced for one aggregate version and the unique key chose (R3.3). */
    @Provider
    public static class DuplicateVersion implements ExceptionMapper<DuplicateEventVersionException> {
        @Override
        public Response toResponse(DuplicateEventVersionException e) {
            return json(Response.Status.CONFLICT, e.getMessage());
        }
    }

    /**
     * Everything no other mapper claims. A database that is away (a restart, a failover) is a 503 with Retry-After,
     * which clients and load balancers retry; anything else is a 500 that names a log reference, never a stack
     * trace. The JAX-RS runtime's own answers (404, 405, 415) pass through unchanged.
     */
    @Provider
    public static class Unexpected implements ExceptionMapper<RuntimeException> {

        private static final Logger LOG = Logger.getLogger(CommandErrors.class.getName());

        @Override
        public Response toResponse(RuntimeException e) {
            if (e instanceof WebApplicationException web) {
                return web.getResponse();
            }
            if (DatabaseOutage.isCauseOf(e)) {
                LOG.warning(() -> "the database is unavailable; answered 503: " + e.getClass().getName());
                return Response.fromResponse(json(Response.Status.SERVICE_UNAVAILABLE,
                        "the database is unavailable; try again shortly")).header("Retry-After", "5").build();
            }
            String reference = UUID.randomUUID().toString();
            LOG.log(Level.SEVERE, "unexpected failure, reference " + reference, e);
            return json(Response.Status.INTERNAL_SERVER_ERROR, "unexpected failure, reference " + reference);
        }
    }
}
