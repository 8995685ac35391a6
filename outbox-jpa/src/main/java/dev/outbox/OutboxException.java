package dev.outbox;

/** The root of everything the write side throws; unchecked, so {@code @Transactional} rolls back. */
public class OutboxException extends RuntimeException {

    public OutboxException(String message) {
        super(message);
    }

    public OutboxException(String message, Throwable cause) {
        super(message, cause);
    }
}
