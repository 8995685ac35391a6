package dev.outbox.example.orders.boundary;

/** The request is malformed; the message names the field: HTTP 400. */
public class InvalidOrderException extends RuntimeException {

    public InvalidOrderException(String message) {
        super(message);
    }
}
