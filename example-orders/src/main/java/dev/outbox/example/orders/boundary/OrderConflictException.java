package dev.outbox.example.orders.boundary;

/** The command lost against the order's current version or state: HTTP 409, nothing committed. */
public class OrderConflictException extends RuntimeException {

    public OrderConflictException(String message) {
        super(message);
    }
}
