package dev.outbox.it.ops;

import dev.outbox.it.support.ExampleService;
import dev.outbox.it.support.ExampleService.Reply;
import dev.outbox.it.support.OutboxDatabase;
import dev.outbox.it.support.OutboxDatabase.StoredEvent;
import dev.outbox.it.support.ServerLog;
import dev.outbox.it.support.ServerLogOnFailure;
import dev.outbox.it.support.ServerOverrides;
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

import static dev.outbox.it.support.Eventually.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Shadow mode and the switch-over flag (R8.3) on the real server: an event type in shadow mode is recorded,
 * claimed and reported, but never handed to the broker (its old path sends it); switched to publish, the next
 * events of that type go through the outbox, and an event keeps the mode it was recorded under.
 */
@ExtendWith({ArquillianExtension.class, ServerLogOnFailure.class})
class ShadowModeIT {

    private static final Duration SOON = Duration.ofSeconds(20);

    private final ExampleService service = ExampleService.fromSystemProperties();
    private final OutboxDatabase db = OutboxDatabase.fromSystemProperties();

    @Deployment(testable = false)
    static EnterpriseArchive exampleEar() {
        return ShrinkWrap.createFromZipFile(EnterpriseArchive.class, new File(Settings.required("it.ear")));
    }

    @Test
    void aShadowedTypeIsReportedButNeverSentAndSwitchingOverSendsOnlyLaterEvents() {
        Reply placed = service.placeOrder("shadow-" + UUID.randomUUID(), new BigDecimal("6"));
        assertEquals(201, placed.status(), placed.toString());
        String order = placed.orderId();
        await(SOON, "OrderPlaced delivered", () -> db.eventsOf(order).get(0).state(), "DELIVERED"::equals);

        ServerOverrides.write("shadow.xml", "<server><variable name=\"outbox.publisher.mode.OrderNoted\""
                + " value=\"shadow\"/></server>");
        try {
            assertEquals(200, service.note(order, "shadowed").status());
            StoredEvent shadowed = await(SOON, "the shadowed OrderNoted confirmed", () -> db.eventsOf(order).get(1),
                    e -> e.state().equals("DELIVERED"));
            assertEquals("shadow:jms:java:app/jms/OutboxEvents", shadowed.brokerMessageId(),
                    "delivered by the old path, and the report says where the outbox would have sent it");
            assertTrue(ServerLog.text().contains("shadow: would send " + shadowed.eventId()),
                    "the publisher reported what it would send");
            // The shipping MDB reads every event on the queue: had the outbox sent the shadowed event, it would have
            // been on the queue before an order placed after it was confirmed, and the inbox would hold it by then.
            Reply later = service.placeOrder("shadow-later-" + UUID.randomUUID(), BigDecimal.ONE);
            assertEquals(201, later.status(), later.toString());
            await(SOON, "an OrderPlaced recorded after the shadowed event processed",
                    () -> inboxMarks(db.eventsOf(later.orderId()).get(0)), n -> n == 1);
            assertEquals(0, inboxMarks(shadowed), "a shadowed event never reached the broker");
        } finally {
            ServerOverrides.delete("shadow.xml");
        }

        assertEquals(200, service.note(order, "published").status());
        StoredEvent published = await(SOON, "the OrderNoted after the switch-over delivered",
                () -> db.eventsOf(order).get(2), e -> e.state().equals("DELIVERED"));
        assertTrue(published.brokerMessageId().startsWith("ID:"), "a real JMS message id: " + published.brokerMessageId());
        await(SOON, "the switched-over OrderNoted reached the consumer's inbox",
                () -> inboxMarks(published), n -> n == 1);
    }

    private long inboxMarks(StoredEvent event) {
        return db.count("processed_event", "event_id = '" + event.eventId() + "'");
    }
}
