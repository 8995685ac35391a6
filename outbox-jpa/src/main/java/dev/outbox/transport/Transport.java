package dev.outbox.transport;

import dev.outbox.event.OutboxEvent;

import java.util.List;

/**
 * A broker the publisher delivers to. Two implementations: JMS and Kafka (in outbox-jms-bridge). The
 * publisher calls {@link #send} with no transaction and no database lock held (R4.2).
 *
 * <p>The contract lives in outbox-jpa (EAR {@code lib/}) rather than outbox-ejb, because on WildFly a jar in
 * {@code lib/} cannot see classes of an EJB module, and the transports live in {@code lib/} too.
 */
public interface Transport {

    /** The name a server.xml variable selects it by: {@code jms} or {@code kafka}. */
    String name();

    /**
     * Sends the events in order and answers one result per event, in the same order. Must not throw: a failure
     * of the whole batch is one failure result per event.
     */
    List<SendResult> send(List<OutboundEvent> events);

    /**
     * Where this transport would send the event, for people: a replay's dry run shows it (R9.2). The JMS
     * transport names the destination's JNDI name, the Kafka transport the topic.
     */
    default String destinationOf(OutboxEvent event) {
        return name();
    }
}
