package dev.outbox.example.invoicing.boundary;

import dev.outbox.InboxedEvent;
import dev.outbox.example.invoicing.entity.Invoice;
import dev.outbox.example.invoicing.entity.InvoiceEntry;
import dev.outbox.example.orders.control.FaultDrill;
import dev.outbox.example.orders.control.OrderEvents;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.json.JsonObject;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;

import java.time.OffsetDateTime;
import java.time.ZoneOffset;

/**
 * The invoicing service's business change for one order event. It runs inside the inbox's transaction, so it
 * runs once per event (the inbox decides) and its rows commit with the inbox mark.
 */
@ApplicationScoped
public class Invoicing {

    /** Fault drill (R7.5 at the consumer): an OrderPlaced whose customer starts so always fails here. */
    public static final String POISON_PREFIX = "drill-poison-invoice-";

    @PersistenceContext(unitName = "orders")
    EntityManager entityManager;

    @Inject
    FaultDrill faultDrill;

    public void apply(InboxedEvent event) {
        JsonObject body = OrderEvents.body(event.payload());
        String orderId = event.aggregateId();
        long version = event.aggregateVersion() == null ? 0 : event.aggregateVersion();
        Invoice invoice = entityManager.find(Invoice.class, orderId);
        Long previous = invoice == null ? null : invoice.lastVersion();
        if (OrderEvents.ORDER_PLACED.equals(event.eventType())) {
            if (faultDrill.enabled() && body.getString("customerId", "").startsWith(POISON_PREFIX)) {
                throw new IllegalArgumentException("fault drill: invoicing rejects order " + orderId);
            }
            if (invoice == null) {
                entityManager.persist(new Invoice(orderId, body.getJsonNumber("amount").bigDecimalValue(), version));
            }
        } else if (invoice == null) {
            // R5.7: the inbox applies versions in order, so this is an order whose OrderPlaced invoicing never applied
            // (parked on the dead-letter topic, or skipped by an operator): fail, and park this one too.
            throw new IllegalStateException("no invoice for order " + orderId + " at " + event.describe());
        } else if (OrderEvents.ORDER_PAID.equals(event.eventType())) {
            invoice.settle(version);
        } else {
            invoice.noted(version);
        }
        entityManager.persist(new InvoiceEntry(event.eventId().value(), orderId, version, previous, event.eventType(),
                OffsetDateTime.now(ZoneOffset.UTC)));
    }

}
