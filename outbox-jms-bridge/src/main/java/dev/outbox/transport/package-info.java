/**
 * Transports to brokers (JMS, Kafka) and the consumer-side inbox glue (MDB interceptor, MicroProfile Reactive
 * Messaging). Not built yet: the foundation records events and the publisher issue adds the transports here.
 */
package dev.outbox.transport;
