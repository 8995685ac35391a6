package dev.outbox.example.orders.boundary;

/** No order has this id: HTTP 404. */
public class OrderNotFoundException extends RuntimeException {

    public OrderNotFoundException(String orderId) {
        super("no order " + orderId);
    }
}
