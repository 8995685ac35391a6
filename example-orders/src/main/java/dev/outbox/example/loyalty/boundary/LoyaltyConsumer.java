package dev.outbox.example.loyalty.boundary;

import dev.outbox.InboxedEvent;
import dev.outbox.example.loyalty.entity.LoyaltyPoints;
import dev.outbox.example.orders.control.FaultDrill;
import dev.outbox.example.orders.control.OrderEvents;
import dev.outbox.kafka.ReactiveInbox;
import jakarta.annotation.Priority;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.event.Startup;
import jakarta.inject.Inject;
import jakarta.interceptor.Interceptor;
import jakarta.json.JsonObject;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.eclipse.microprofile.reactive.messaging.Incoming;
import org.eclipse.microprofile.reactive.messaging.Message;

import java.time.Duration;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.logging.Logger;

/**
 * The "loyalty" service, fed from Kafka through MicroProfile Reactive Messaging (channel {@code order-events},
 * configured by the {@code mp.messaging.incoming.order-events.*} variables in server.xml): one point per whole
 * unit of a paid order's amount, exactly once per OrderPaid. See {@link ReactiveInbox} for the Liberty
 * connector's behaviour on a broker outage.
 */
@ApplicationScoped
public class LoyaltyConsumer {

    public static final String CONSUMER = "loyalty";
    /**
     * Fault drill (R6.1), with {@code example.fault-drills} on: a paid order of a customer named so holds
     * the consumer for {@link #STALL} before it is applied, once per event, so a test sees a consumer that stops
     * finishing records while more wait, and then recovers.
     */
    public static final String STALL_PREFIX = "drill-stall-loyalty-";
    static final Duration STALL = Duration.ofSeconds(25);
    private static final Set<UUID> STALLED_ONCE = ConcurrentHashMap.newKeySet();
    private static final Logger LOG = Logger.getLogger(LoyaltyConsumer.class.getName());

    @Inject
    FaultDrill drills;

    @Inject
    ReactiveInbox inbox;

    @PersistenceContext(unitName = "orders")
    EntityManager entityManager;

    @Inject
    @ConfigProperty(name = "example.kafka.enabled", defaultValue = "false")
    boolean kafkaEnabled;

    /** A channel that stops reading (Liberty's does for good after a broker outage) turns liveness DOWN. */
    void watch(@Observes @Priority(Interceptor.Priority.APPLICATION + 1000) Startup startup) {
        if (kafkaEnabled) {
            inbox.watch(CONSUMER, "order-events");
        }
    }

    @Incoming("order-events")
    public CompletionStage<Void> onOrderEvent(Message<String> message) {
        return inbox.process(CONSUMER, message, this::award);
    }

    void award(InboxedEvent event) {
        if (!OrderEvents.ORDER_PAID.equals(event.eventType())) {
            return;
        }
        JsonObject paid = OrderEvents.body(event.payload());
        stallIfDrilled(event, paid.getString("customerId", ""));
        long points = paid.getJsonNumber("amount").bigDecimalValue().longValue();
        entityManager.persist(new LoyaltyPoints(event.aggregateId(), event.eventId().value(), points));
    }

    private void stallIfDrilled(InboxedEvent event, String customerId) {
        if (drills.enabled() && customerId.startsWith(STALL_PREFIX) && STALLED_ONCE.add(event.eventId().value())) {
            LOG.warning(() -> "fault drill: loyalty holds " + event.describe() + " for " + STALL.toSeconds() + " s");
            try {
                Thread.sleep(STALL.toMillis());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("fault drill interrupted", e);
            }
        }
    }
}
