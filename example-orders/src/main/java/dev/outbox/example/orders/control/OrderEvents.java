package dev.outbox.example.orders.control;

import dev.outbox.OutboxEvent;
import dev.outbox.example.orders.entity.Order;
import jakarta.json.JsonObject;
import jakarta.json.JsonObjectBuilder;
import jakarta.json.JsonReader;
import jakarta.json.spi.JsonProvider;

import java.io.StringReader;
import java.math.BigDecimal;

/**
 * The example's event contracts, built from the values the command is about to commit (R2.6) and holding only
 * what consumers need (R2.4). Schema version 1 of each.
 */
public final class OrderEvents {

    /** Looked up once: {@code Json.createObjectBuilder} searches the service loader on every call. */
    private static final JsonProvider JSON = JsonProvider.provider();

    public static final String ORDER_PLACED = "OrderPlaced";
    public static final String ORDER_PAID = "OrderPaid";
    public static final String ORDER_NOTED = "OrderNoted";

    private OrderEvents() {
    }

    /**
     * An event's body as its consumers read it ({@code {}} for none). Through the provider looked up once: the
     * consumers called {@code Json.createReader}, whose service-loader search was a fifth of the invoicing
     * consumer's time in the B3 benchmark's profile.
     */
    public static JsonObject body(String payload) {
        try (JsonReader reader = JSON.createReader(new StringReader(payload == null ? "{}" : payload))) {
            return reader.readObject();
        }
    }

    public static OutboxEvent placed(Order order, String note) {
        JsonObjectBuilder body = JSON.createObjectBuilder()
                .add("orderId", order.id())
                .add("customerId", order.customerId())
                .add("amount", order.amount());
        if (note != null) {
            body.add("note", note);
        }
        return OutboxEvent.of(Order.AGGREGATE_TYPE, order.id(), order.version(), ORDER_PLACED,
                body.build().toString());
    }

    public static OutboxEvent paid(String orderId, String customerId, BigDecimal amount, long paidVersion) {
        String body = JSON.createObjectBuilder()
                .add("orderId", orderId)
                .add("customerId", customerId)
                .add("amount", amount)
                .build().toString();
        return OutboxEvent.of(Order.AGGREGATE_TYPE, orderId, paidVersion, ORDER_PAID, body);
    }

    public static OutboxEvent noted(String orderId, String note, long version) {
        String body = JSON.createObjectBuilder().add("orderId", orderId).add("note", note).build().toString();
        return OutboxEvent.of(Order.AGGREGATE_TYPE, orderId, version, ORDER_NOTED, body);
    }
}
