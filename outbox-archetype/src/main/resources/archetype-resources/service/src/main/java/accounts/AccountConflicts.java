package ${package}.accounts;

import jakarta.json.Json;
import jakarta.persistence.PersistenceException;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.ext.ExceptionMapper;
import jakarta.ws.rs.ext.Provider;

import java.sql.SQLException;

/**
 * A deposit the database refused rolled back with its event: nothing of it was committed. One that lost a race for
 * its account (two first deposits to a new account insert the same id: an integrity constraint, SQLState 23...) is a
 * 409, and the client tries again; anything else (the database did not answer, a lock wait ran out) is a 503.
 */
@Provider
public class AccountConflicts implements ExceptionMapper<PersistenceException> {

    @Override
    public Response toResponse(PersistenceException refused) {
        boolean conflict = false;
        for (Throwable cause = refused; cause != null && cause.getCause() != cause; cause = cause.getCause()) {
            if (cause instanceof SQLException sql && sql.getSQLState() != null && sql.getSQLState().startsWith("23")) {
                conflict = true;
            }
        }
        return Response.status(conflict ? Response.Status.CONFLICT : Response.Status.SERVICE_UNAVAILABLE)
                .type(MediaType.APPLICATION_JSON)
                .entity(Json.createObjectBuilder().add("error", conflict
                        ? "the account changed concurrently; nothing was recorded, try again"
                        : "the database did not take the deposit; nothing was recorded, try again later").build())
                .build();
    }
}
