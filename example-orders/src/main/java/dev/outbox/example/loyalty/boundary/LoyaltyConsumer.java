package dev.outbox.example.loyalty.boundary;

import dev.outbox.example.loyalty.entity.LoyaltyPoints;
import dev.outbox.example.orders.control.OrderEvents;
import dev.outbox.InboxedEvent;
import dev.outbox.kafka.ReactiveInbox;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.json.Json;
import jakarta.json.JsonReader;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import org.eclipse.microprofile.reactive.messaging.Incoming;
import org.eclipse.microprofile.reactive.messaging.Message;

import java.io.StringReader;
import java.util.concurrent.CompletionStage;

/**
 * The "loyalty" service, fed from Kafka through MicroProfile Reactive Messaging (channel {@code order-events},
 * configured by the {@code mp.messaging.incoming.order-events.*} variables in server.xml): one point per whole
 * unit of a paid order's amount, exactly once per OrderPaid. See {@link ReactiveInbox} for the Liberty
 * connector's behaviour on a broker outage.
 */
@ApplicationScoped
public class LoyaltyConsumer {

    public static final String CONSUMER = "loyalty";

    @Inject
    ReactiveInbox inbox;

    @PersistenceContext(unitName = "orders")
    EntityManager entityManager;

    @Incoming("order-events")
    public CompletionStage<Void> onOrderEvent(Message<String> message) {
        return inbox.process(CONSUMER, message, this::award);
    }

    void award(InboxedEvent event) {
        if (!OrderEvents.ORDER_PAID.equals(event.eventType())) {
            return;
        }
        try (JsonReader reader = Json.createReader(new StringReader(event.payload()))) {
            long points = reader.readObject().getJsonNumber("amount").bigDecimalValue().longValue();
            entityManager.persist(new LoyaltyPoints(event.aggregateId(), event.eventId().value(), points));
        }
    }
}
