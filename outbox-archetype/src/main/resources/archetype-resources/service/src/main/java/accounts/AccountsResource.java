package ${package}.accounts;

import ${package}.statements.StatementLine;
import ${package}.statements.Statements;
import jakarta.enterprise.context.RequestScoped;
import jakarta.inject.Inject;
import jakarta.json.Json;
import jakarta.json.JsonArrayBuilder;
import jakarta.json.JsonNumber;
import jakarta.json.JsonObject;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;

import java.net.URI;

/** POST /api/accounts/{id}/deposits records a deposit; GET /api/accounts/{id} shows the balance and statement. */
@Path("/accounts/{id}")
@RequestScoped
@Produces(MediaType.APPLICATION_JSON)
public class AccountsResource {

    @Inject
    Accounts accounts;

    @Inject
    Statements statements;

    @POST
    @Path("/deposits")
    @Consumes(MediaType.APPLICATION_JSON)
    public Response deposit(@PathParam("id") String accountId, JsonObject deposit) {
        JsonNumber amount = deposit != null && deposit.get("amount") instanceof JsonNumber number ? number : null;
        if (amount == null || amount.bigDecimalValue().signum() <= 0
                || amount.bigDecimalValue().stripTrailingZeros().scale() > 2) {
            return Response.status(Response.Status.BAD_REQUEST)
                    .entity(Json.createObjectBuilder()
                            .add("error", "amount must be a positive number with at most two decimals").build())
                    .build();
        }
        long version = accounts.deposit(accountId, amount.bigDecimalValue());
        return Response.created(URI.create("/api/accounts/" + accountId))
                .entity(Json.createObjectBuilder().add("accountId", accountId).add("version", version).build())
                .build();
    }

    @GET
    public Response show(@PathParam("id") String accountId) {
        Account account = accounts.find(accountId);
        if (account == null) {
            return Response.status(Response.Status.NOT_FOUND).build();
        }
        JsonArrayBuilder lines = Json.createArrayBuilder();
        for (StatementLine line : statements.of(accountId)) {
            lines.add(Json.createObjectBuilder()
                    .add("version", line.accountVersion())
                    .add("amount", line.amount())
                    .add("eventId", line.eventId()));
        }
        return Response.ok(Json.createObjectBuilder()
                .add("accountId", accountId)
                .add("balance", account.balance())
                .add("version", account.version())
                .add("statement", lines)
                .build()).build();
    }
}
