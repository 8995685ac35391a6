package dev.outbox.example.orders.boundary;

import dev.outbox.example.orders.control.FaultDrill;
import dev.outbox.example.orders.entity.Order;
import jakarta.inject.Inject;
import jakarta.json.Json;
import jakarta.json.JsonException;
import jakarta.json.JsonNumber;
import jakarta.json.JsonObject;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;
import jakarta.json.stream.JsonParser;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;

import java.io.StringReader;
import java.math.BigDecimal;

/**
 * {@code POST /api/orders}, {@code POST /api/orders/{id}/pay}, {@code POST /api/orders/{id}/notes},
 * {@code GET /api/orders/{id}}. The body is read
 * as text and parsed here, so every malformed request gets a 400 that names the field.
 */
@Path("orders")
@Produces(MediaType.APPLICATION_JSON)
public class OrdersResource {

    static final BigDecimal MAX_AMOUNT = new BigDecimal("9999999999.99");

    @Inject
    Orders orders;

    @Inject
    FaultDrill faultDrill;

    @PersistenceContext(unitName = "orders")
    EntityManager entityManager;

    @POST
    @Consumes(MediaType.APPLICATION_JSON)
    public Response place(String body, @HeaderParam(FaultDrill.HEADER) String drill) {
        JsonObject json = parse(body, true);
        String customerId = text(json, "customerId");
        if (customerId == null || customerId.isBlank() || customerId.length() > 100) {
            throw new InvalidOrderException("customerId is required: a string of 1 to 100 characters");
        }
        if (customerId.chars().anyMatch(Character::isISOControl)) {
            // PostgreSQL cannot store NUL in text; no customer id needs a control character.
            throw new InvalidOrderException("customerId must not contain control characters");
        }
        BigDecimal amount = amount(json);
        String note = json.containsKey("note") ? text(json, "note") : null;
        Orders.Placed placed = orders.place(customerId, amount, note, drillPoint(drill));
        return Response.status(Response.Status.CREATED)
                .entity(Json.createObjectBuilder().add("orderId", placed.orderId())
                        .add("version", placed.version()).build())
                .build();
    }

    @POST
    @Path("{id}/pay")
    public Response pay(@PathParam("id") String orderId, String body, @HeaderParam(FaultDrill.HEADER) String drill) {
        JsonObject json = parse(body, false);
        Long expected = null;
        if (json.containsKey("version")) {
            if (!(json.get("version") instanceof JsonNumber number) || !number.isIntegral()
                    || number.bigDecimalValue().compareTo(BigDecimal.ONE) < 0
                    || number.bigDecimalValue().compareTo(BigDecimal.valueOf(Long.MAX_VALUE)) > 0) {
                // Compared as a decimal: longValue() would wrap 99999999999999999999 into some other version.
                throw new InvalidOrderException("version must be a whole number from 1 to " + Long.MAX_VALUE);
            }
            expected = number.longValue();
        }
        Orders.Placed paid = orders.pay(orderId, expected, drillPoint(drill));
        return Response.ok(Json.createObjectBuilder().add("orderId", paid.orderId())
                .add("version", paid.version()).build()).build();
    }

    @POST
    @Path("{id}/notes")
    @Consumes(MediaType.APPLICATION_JSON)
    public Response note(@PathParam("id") String orderId, String body) {
        String note = text(parse(body, true), "note");
        if (note == null || note.isBlank() || note.length() > 1000) {
            throw new InvalidOrderException("note is required: a string of 1 to 1000 characters");
        }
        Orders.Placed noted = orders.note(orderId, note);
        return Response.ok(Json.createObjectBuilder().add("orderId", noted.orderId())
                .add("version", noted.version()).build()).build();
    }

    @GET
    @Path("{id}")
    public JsonObject get(@PathParam("id") String orderId) {
        Order order = entityManager.find(Order.class, orderId);
        if (order == null) {
            throw new OrderNotFoundException(orderId);
        }
        return Json.createObjectBuilder()
                .add("orderId", order.id())
                .add("customerId", order.customerId())
                .add("amount", order.amount())
                .add("status", order.status().name())
                .add("version", order.version())
                .build();
    }

    private FaultDrill.Point drillPoint(String header) {
        try {
            return faultDrill.requested(header);
        } catch (IllegalArgumentException e) {
            throw new InvalidOrderException(e.getMessage());
        }
    }

    private static JsonObject parse(String body, boolean required) {
        if (body == null || body.isBlank()) {
            if (required) {
                throw new InvalidOrderException("the request body must be a JSON object");
            }
            return JsonValue.EMPTY_JSON_OBJECT;
        }
        try (JsonParser parser = Json.createParser(new StringReader(body))) {
            if (!parser.hasNext() || parser.next() != JsonParser.Event.START_OBJECT) {
                throw new InvalidOrderException("the request body must be a JSON object");
            }
            JsonObject object = parser.getObject();
            if (parser.hasNext()) {
                // readObject() would ignore what follows the object; a body is one object and nothing else.
                throw new InvalidOrderException("the request body must be one JSON object, with nothing after it");
            }
            return object;
        } catch (JsonException | IllegalStateException | UnsupportedOperationException
                 | java.util.NoSuchElementException e) {
            // Parsson refuses numbers over 1,100 digits with UnsupportedOperationException, not a JsonException.
            throw new InvalidOrderException("the request body must be a JSON object");
        } catch (RuntimeException e) {
            if (e.getClass() != RuntimeException.class) {
                throw e;
            }
            // Parsson refuses nesting deeper than 1,000 with a plain RuntimeException; anything else is ours.
            throw new InvalidOrderException("the request body must be a JSON object");
        }
    }

    private static String text(JsonObject json, String field) {
        JsonValue value = json.get(field);
        if (value == null || value == JsonValue.NULL) {
            return null;
        }
        if (!(value instanceof JsonString string)) {
            throw new InvalidOrderException(field + " must be a string");
        }
        return string.getString();
    }

    private static String abbreviated(String text) {
        return text.length() <= 40 ? text : text.substring(0, 40) + "...";
    }

    private static BigDecimal amount(JsonObject json) {
        if (!(json.get("amount") instanceof JsonNumber number)) {
            throw new InvalidOrderException("amount is required: a number above 0 with at most 2 decimals");
        }
        BigDecimal amount = number.bigDecimalValue();
        if (amount.signum() <= 0 || amount.scale() > 2 || amount.compareTo(MAX_AMOUNT) > 0) {
            // The number as sent in E-notation, never toPlainString(): 1e999999999 would be a billion digits.
            throw new InvalidOrderException("amount must be above 0, at most " + MAX_AMOUNT
                    + ", with at most 2 decimals, was " + abbreviated(amount.toString()));
        }
        return amount;
    }
}
