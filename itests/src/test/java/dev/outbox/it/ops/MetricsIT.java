package dev.outbox.it.ops;

import dev.outbox.it.support.ExampleService;
import dev.outbox.it.support.ExampleService.Reply;
import dev.outbox.it.support.MetricsProbe;
import dev.outbox.it.support.MonitoringQueries;
import dev.outbox.it.support.OutboxDatabase;
import dev.outbox.it.support.ServerLogOnFailure;
import dev.outbox.it.support.Settings;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.shrinkwrap.api.ShrinkWrap;
import org.jboss.shrinkwrap.api.spec.EnterpriseArchive;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.io.File;
import java.math.BigDecimal;
import java.time.Duration;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static dev.outbox.it.support.Eventually.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The metrics on {@code /metrics} (R6.1, R6.2), scraped from the real server while a backlog exists: the oldest
 * pending age, pending and parked counts per event type, send outcomes per type and destination, the inbox's
 * receipts (duplicate hit rate) and its publish-to-consume latency. On H2 and on PostgreSQL.
 */
@ExtendWith({ArquillianExtension.class, ServerLogOnFailure.class})
class MetricsIT {

    private static final Duration SOON = Duration.ofSeconds(20);

    private final ExampleService service = ExampleService.fromSystemProperties();
    private final OutboxDatabase db = OutboxDatabase.fromSystemProperties();

    @Deployment(testable = false)
    static EnterpriseArchive exampleEar() {
        return ShrinkWrap.createFromZipFile(EnterpriseArchive.class, new File(Settings.required("it.ear")));
    }

    @Test
    void aParkedEventAndTheBacklogBehindItShowPerEventTypeWhileOtherTypesStayClean() {
        // OrderPlaced parks on this server's 2000-byte JMS limit; the strict OrderPaid behind it stays pending.
        Reply big = service.placeOrderRaw("{\"customerId\":\"metrics-" + UUID.randomUUID() + "\",\"amount\":4,"
                + "\"note\":\"" + "m".repeat(3000) + "\"}", null);
        assertEquals(201, big.status(), big.toString());
        assertEquals(200, service.pay(big.orderId(), 1).status());
        await(SOON, "OrderPlaced parked", () -> db.eventsOf(big.orderId()).get(0).state(), "PARKED"::equals);

        String scrape = await(SOON, "the gauges showing the parked OrderPlaced and the OrderPaid behind it",
                () -> service.metrics(),
                text -> value(text, "outbox_parked", "event_type=\"OrderPlaced\"") >= 1
                        && value(text, "outbox_pending", "event_type=\"OrderPaid\"") >= 1
                        && value(text, "outbox_oldest_pending_age_seconds", "event_type=\"OrderPaid\"") > 0);
        System.out.println("metrics scrape with a backlog:\n" + scrape.lines()
                .filter(l -> l.startsWith("outbox_")).reduce("", (a, b) -> a + b + "\n"));
        assertTrue(value(scrape, "outbox_publish_total", "event_type=\"OrderPlaced\"", "outcome=\"permanent\"",
                "destination=\"jms\"") >= 1, "the permanent failure is counted by type and destination");
        assertTrue(value(scrape, "outbox_oldest_pending_age_seconds", "event_type=\"*\"") > 0,
                "the overall oldest pending age");
    }

    @Test
    void theInboxCountsDuplicatesAndMeasuresPublishToConsumeLatency() {
        Reply placed = service.placeOrder("metrics-flow-" + UUID.randomUUID(), new BigDecimal("2"));
        assertEquals(201, placed.status(), placed.toString());
        assertEquals(200, service.pay(placed.orderId(), 1).status());
        await(SOON, "the order shipped", () -> db.countWhere("shipment", "order_id", placed.orderId()), n -> n == 1);
        String before = service.metrics();
        double firstBefore = value(before, "outbox_inbox_received_total", "consumer=\"shipping\"", "receipt=\"first\"");
        assertTrue(firstBefore >= 2, "the shipping inbox counted its first deliveries: " + firstBefore);
        assertTrue(value(before, "outbox_inbox_latency_seconds_count", "consumer=\"shipping\"") >= 2,
                "publish-to-consume latency measured");
        assertTrue(value(before, "outbox_publish_total", "event_type=\"OrderPaid\"", "outcome=\"delivered\"") >= 1);

        // A lost confirm: the row goes back to pending and the same event id is sent again.
        String paid = db.eventsOf(placed.orderId()).get(1).eventId().toString();
        double duplicatesBefore = value(before, "outbox_inbox_received_total", "consumer=\"shipping\"",
                "receipt=\"duplicate\"");
        db.execute("UPDATE outbox_event SET state = 'PENDING', next_attempt_at = CURRENT_TIMESTAMP WHERE event_id = '"
                + paid + "'");
        await(SOON, "the duplicate counted by the inbox", () -> value(service.metrics(),
                "outbox_inbox_received_total", "consumer=\"shipping\"", "receipt=\"duplicate\""),
                n -> n >= duplicatesBefore + 1);
    }

    /**
     * Every series the shipped alert rules and dashboard query (monitoring/) is on this server's /metrics once
     * events have flowed, failed and parked: a renamed meter would leave an alert that never fires.
     */
    @Test
    void everySeriesTheShippedAlertsAndDashboardQueryIsExposed() {
        Reply placed = service.placeOrder("metrics-series-" + UUID.randomUUID(), new BigDecimal("3"));
        assertEquals(201, placed.status(), placed.toString());
        assertEquals(200, service.pay(placed.orderId(), 1).status());
        try (MetricsProbe probe = MetricsProbe.plant(db)) {
            await(SOON, "a scrape with every series monitoring/ queries (the missing ones shown)",
                    () -> MonitoringQueries.missingFrom(service.metrics()), java.util.Set::isEmpty);
        }
    }

    /** The value of the first series of a metric whose labels contain every given label, or -1. */
    static double value(String scrape, String metric, String... labels) {
        Pattern line = Pattern.compile("^" + Pattern.quote(metric) + "\\{([^}]*)\\} (\\S+)$", Pattern.MULTILINE);
        Matcher m = line.matcher(scrape);
        while (m.find()) {
            boolean all = true;
            for (String label : labels) {
                all &= m.group(1).contains(label);
            }
            if (all) {
                return Double.parseDouble(m.group(2));
            }
        }
        return -1;
    }
}
