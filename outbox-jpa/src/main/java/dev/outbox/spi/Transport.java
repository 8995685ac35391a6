package dev.outbox.spi;

import dev.outbox.OutboxEvent;

import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * A broker the publisher delivers to. Two implementations: JMS and Kafka (in outbox-jms-bridge). The
 * publisher calls {@link #send} with no transaction and no database lock held (R4.2).
 *
 * <p>The contract lives in outbox-jpa (EAR {@code lib/}) rather than outbox-ejb, because on WildFly a jar in
 * {@code lib/} cannot see classes of an EJB module, and the transports live in {@code lib/} too.
 */
public interface Transport {

    /** The name the setting outbox.publisher.transport selects it by: {@code jms} or {@code kafka}. */
    String name();

    /**
     * Sends the events in order and answers one result per event, in the same order. Must not throw: a failure
     * of the whole batch is one failure result per event. No event is handed to the broker once {@code deadline}
     * has passed: those answer {@link SendDeadline#missed()} (R4.3: a send must not outlive its lease).
     */
    List<SendResult> send(List<OutboundEvent> events, SendDeadline deadline);

    /**
     * Where this transport would send the event, for people: a replay's dry run shows it (R9.2). The JMS
     * transport names the destination's JNDI name, the Kafka transport the topic.
     */
    default String destinationOf(OutboxEvent event) {
        return name();
    }

    /**
     * The longest one {@link #send} can take and the settings that make it so; empty where the transport sets no
     * bound of its own. The publisher refuses to start when a send could outlive its lease: another server would
     * take the batch over and send it again while this send still waits (R4.3).
     */
    default Optional<SendBound> longestSend() {
        return Optional.empty();
    }

    /** How long a send may take at most, and the settings that bound it (for the start-up message). */
    record SendBound(Duration longest, String settings) {
    }
}
