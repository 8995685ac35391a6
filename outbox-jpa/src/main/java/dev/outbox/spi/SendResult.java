package dev.outbox.spi;

/**
 * What the broker said about one event: the four outcomes of the transport contract (docs/guarantees.md).
 * A transport must answer with one of these for every event it was handed, and never throw.
 */
public sealed interface SendResult {

    /** The broker accepted and confirmed the message; {@code brokerMessageId} is verifiable (R4.2, R4.7). */
    record Delivered(String brokerMessageId, Integer partition, Long offset) implements SendResult {
    }

    /** The broker refused for now (down, busy, timed out before sending): retry with backoff (R4.4). */
    record TransientFailure(String errorClass) implements SendResult {
    }

    /** Retrying cannot help (message too large, rejected schema): park at once (R4.5). */
    record PermanentFailure(String errorClass) implements SendResult {
    }

    /**
     * The send may or may not have reached the broker (the ack never came). Treated as not delivered: retried
     * with the same event id, which the consumer's inbox absorbs if it did arrive (R4.4, R1.3).
     */
    record UnknownOutcome(String errorClass) implements SendResult {
    }
}
