package dev.outbox.example.orders.boundary;

import dev.outbox.DatabaseOutage;
import dev.outbox.DuplicateEventVersionException;
import dev.outbox.InvalidEventException;
import dev.outbox.OutboxWriteException;
import jakarta.json.Json;
import jakarta.persistence.PersistenceException;
import jakarta.transaction.TransactionalException;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.ext.ExceptionMapper;
import jakarta.ws.rs.ext.Provider;

import java.util.UUID;
import java.util.logging.Logger;

/** Turns command failures into JSON error responses: {@code {"error": "..."}}. */
public final class CommandErrors {

    private static final Logger LOG = Logger.getLogger(CommandErrors.class.getName());

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
     * Failures of the database work behind a command: the entity manager's, the commit's, the outbox insert's. A
     * database that is away (a restart, a failover) is a 503 with Retry-After, which clients and load balancers
     * retry; anything else is a 500 that names a log reference, never a stack trace.
     */
    static Response databaseFailure(RuntimeException e) {
        if (DatabaseOutage.isCauseOf(e)) {
            LOG.warning(() -> "the database is unavailable; answered 503: " + e.getClass().getName());
            return Response.fromResponse(json(Response.Status.SERVICE_UNAVAILABLE,
                    "the database is unavailable; try again shortly")).header("Retry-After", "5").build();
        }
        String reference = UUID.randomUUID().toString();
        LOG.severe(() -> "unexpected failure, reference " + reference + ": " + causes(e));
        return json(Response.Status.INTERNAL_SERVER_ERROR, "unexpected failure, reference " + reference);
    }

    /**
     * The cause chain as class names and SQLSTATEs, without messages: a database's message may quote the row it
     * refused, customer fields included, which the log must never hold (R6.3).
     */
    private static String causes(Throwable failure) {
        StringBuilder chain = new StringBuilder();
        for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
            chain.append(chain.length() == 0 ? "" : " <- ").append(t.getClass().getName());
            if (t instanceof java.sql.SQLException sql && sql.getSQLState() != null) {
                chain.append(" (SQLSTATE ").append(sql.getSQLState()).append(')');
            }
        }
        return chain.toString();
    }

    @Provider
    public static class PersistenceFailure implements ExceptionMapper<PersistenceException> {
        @Override
        public Response toResponse(PersistenceException e) {
            return databaseFailure(e);
        }
    }

    @Provider
    public static class CommitFailure implements ExceptionMapper<TransactionalException> {
        @Override
        public Response toResponse(TransactionalException e) {
            return databaseFailure(e);
        }
    }

    @Provider
    public static class CommitFailed implements ExceptionMapper<dev.outbox.CommitFailedException> {
        @Override
        public Response toResponse(dev.outbox.CommitFailedException e) {
            return databaseFailure(e);
        }
    }

    @Provider
    public static class OutboxWriteFailure implements ExceptionMapper<OutboxWriteException> {
        @Override
        public Response toResponse(OutboxWriteException e) {
            return databaseFailure(e);
        }
    }
}
