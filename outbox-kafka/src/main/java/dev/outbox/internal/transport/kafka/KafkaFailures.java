package dev.outbox.internal.transport.kafka;

import dev.outbox.spi.SendResult;
import org.apache.kafka.common.errors.AuthenticationException;
import org.apache.kafka.common.errors.AuthorizationException;
import org.apache.kafka.common.errors.InvalidTopicException;
import org.apache.kafka.common.errors.RecordBatchTooLargeException;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.common.errors.UnsupportedVersionException;

/**
 * The Kafka errors in the four classes of the transport contract. Pure logic: unit-tested on the real client's
 * exception types.
 */
final class KafkaFailures {

    private KafkaFailures() {
    }

    /**
     * @param failure   what the producer reported (the cause of an {@code ExecutionException}, or what
     *                  {@code send} threw)
     * @param beforeSend true when the producer refused the record before it left this JVM (send threw, or its
     *                  future was already failed when send returned: metadata timeout, record too large)
     */
    static SendResult classify(Throwable failure, boolean beforeSend) {
        String name = failure.getClass().getSimpleName();
        // R4.5: deterministic for this record: retrying cannot make it smaller or valid.
        if (failure instanceof RecordTooLargeException || failure instanceof RecordBatchTooLargeException
                || failure instanceof SerializationException || failure instanceof UnsupportedVersionException) {
            return new SendResult.PermanentFailure(name);
        }
        if (failure instanceof AuthenticationException || failure instanceof AuthorizationException
                || failure instanceof InvalidTopicException) {
            // Credentials, ACLs and topic names are configuration, the same for every record: parking would park
            // every event of every strict aggregate at once. Back off instead, with the error class in the metrics
            // and the readiness check, like a missing JMS destination; fixing the configuration drains the backlog.
            return new SendResult.TransientFailure(name);
        }
        if (beforeSend) {
            return new SendResult.TransientFailure(name);
        }
        // The record may have reached the broker and only the ack was lost (R4.4): retried with the same event id.
        return new SendResult.UnknownOutcome(name);
    }
}
