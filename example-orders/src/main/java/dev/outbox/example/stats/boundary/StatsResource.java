package dev.outbox.example.stats.boundary;

import dev.outbox.ops.DeliveryCounts;
import dev.outbox.ops.OutboxStatistics;
import jakarta.inject.Inject;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;

/**
 * {@code GET /api/stats}: counts of orders, outbox states, shipments, invoices, loyalty awards and absorbed
 * duplicates.
 */
@Path("stats")
@Produces(MediaType.APPLICATION_JSON)
public class StatsResource {

    @PersistenceContext(unitName = "orders")
    EntityManager entityManager;

    @Inject
    OutboxStatistics outbox;

    @GET
    public JsonObject stats() {
        DeliveryCounts counts = outbox.counts();
        return Json.createObjectBuilder()
                .add("orders", count("SELECT COUNT(o) FROM PurchaseOrder o"))
                .add("eventsPending", counts.pending())
                .add("eventsDelivered", counts.delivered())
                .add("eventsParked", counts.parked())
                .add("eventsBlocked", counts.blocked())
                .add("shipments", count("SELECT COUNT(s) FROM Shipment s"))
                .add("invoices", count("SELECT COUNT(i) FROM Invoice i"))
                .add("invoicesSettled", count("SELECT COUNT(i) FROM Invoice i WHERE i.status = 'SETTLED'"))
                .add("invoiceEntries", count("SELECT COUNT(e) FROM InvoiceEntry e"))
                .add("loyaltyAwards", count("SELECT COUNT(l) FROM LoyaltyPoints l"))
                .add("duplicatesAbsorbed", counts.duplicatesAbsorbed())
                .build();
    }

    private long count(String jpql) {
        return entityManager.createQuery(jpql, Long.class).getSingleResult();
    }
}
