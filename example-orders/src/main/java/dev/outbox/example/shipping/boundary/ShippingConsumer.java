package dev.outbox.example.shipping.boundary;

import dev.outbox.OutboxHeaders;
import dev.outbox.example.orders.control.OrderEvents;
import dev.outbox.example.shipping.entity.Shipment;
import dev.outbox.jms.InboxConsumer;
import jakarta.ejb.ActivationConfigProperty;
import jakarta.ejb.MessageDriven;
import jakarta.ejb.TransactionAttribute;
import jakarta.ejb.TransactionAttributeType;
import jakarta.jms.JMSDestinationDefinition;
import jakarta.jms.JMSException;
import jakarta.jms.Message;
import jakarta.jms.MessageListener;
import jakarta.jms.TextMessage;
import jakarta.json.JsonObject;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;

import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.logging.Logger;

/**
 * The "shipping" service: one shipment per paid order, exactly once, whatever the broker redelivers. The inbox
 * ({@link InboxConsumer}) absorbs a redelivered event; the shipment's unique order id is the business key,
 * and its event id tells a redelivery from a real conflict (R5.2).
 */
@JMSDestinationDefinition(name = "java:app/jms/OutboxEvents", interfaceName = "jakarta.jms.Queue",
        destinationName = "OutboxEvents")
@MessageDriven(activationConfig = {
        @ActivationConfigProperty(propertyName = "destinationLookup", propertyValue = "java:app/jms/OutboxEvents"),
        @ActivationConfigProperty(propertyName = "destinationType", propertyValue = "jakarta.jms.Queue")})
// No XA: the inbox runs the mark and the shipment in a local transaction and the message is acknowledged after it.
@TransactionAttribute(TransactionAttributeType.NOT_SUPPORTED)
@InboxConsumer(ShippingConsumer.CONSUMER)
public class ShippingConsumer implements MessageListener {

    public static final String CONSUMER = "shipping";

    private static final Logger LOG = Logger.getLogger(ShippingConsumer.class.getName());
    /** Fault drill (R7.6): orders of customers named so fail once after the shipment insert. */
    public static final String FAIL_ONCE_PREFIX = "drill-fail-once-after-shipment-";
    private static final Set<String> FAILED_ONCE = ConcurrentHashMap.newKeySet();

    @PersistenceContext(unitName = "orders")
    EntityManager entityManager;

    @Override
    public void onMessage(Message message) {
        try {
            if (!OrderEvents.ORDER_PAID.equals(message.getStringProperty(OutboxHeaders.EVENT_TYPE))) {
                return;
            }
            UUID eventId = UUID.fromString(message.getStringProperty(OutboxHeaders.EVENT_ID));
            JsonObject paid = OrderEvents.body(((TextMessage) message).getText());
            String orderId = paid.getString("orderId");
            List<Shipment> existing = entityManager.createQuery(
                    "SELECT s FROM Shipment s WHERE s.orderId = :order", Shipment.class)
                    .setParameter("order", orderId).getResultList();
            if (!existing.isEmpty()) {
                if (existing.get(0).eventId().equals(eventId)) {
                    return;
                }
                // Not a redelivery: another event claims to have paid this order. Fail loudly (R5.2).
                throw new IllegalStateException("order " + orderId + " already shipped for event "
                        + existing.get(0).eventId() + ", now paid again by event " + eventId);
            }
            entityManager.persist(new Shipment(UUID.randomUUID().toString(), orderId, eventId,
                    OffsetDateTime.now(ZoneOffset.UTC)));
            entityManager.flush();
            if (paid.getString("customerId").startsWith(FAIL_ONCE_PREFIX) && FAILED_ONCE.add(orderId)) {
                LOG.warning(() -> "fault drill: shipping fails after the shipment insert for order " + orderId
                        + ", event " + eventId);
                throw new IllegalStateException("fault drill: consumer fails after its business update");
            }
            LOG.fine(() -> "shipment created for order " + orderId + " from event " + eventId);
        } catch (JMSException e) {
            throw new IllegalStateException("cannot read message", e);
        }
    }
}
