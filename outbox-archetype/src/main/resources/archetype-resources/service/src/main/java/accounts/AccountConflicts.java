package ${package}.accounts;

import jakarta.json.Json;
import jakarta.persistence.PersistenceException;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.ext.ExceptionMapper;
import jakarta.ws.rs.ext.Provider;

/**
 * A deposit that lost a race for its account (two first deposits to a new account insert the same id) rolled back
 * with its event: 409, and the client tries again. Nothing of it was committed.
 */
@Provider
public class AccountConflicts implements ExceptionMapper<PersistenceException> {

    @Override
    public Response toResponse(PersistenceException conflict) {
        return Response.status(Response.Status.CONFLICT).type(MediaType.APPLICATION_JSON)
                .entity(Json.createObjectBuilder()
                        .add("error", "the account changed concurrently; nothing was recorded, try again").build())
                .build();
    }
}
