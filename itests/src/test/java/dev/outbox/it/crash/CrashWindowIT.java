package dev.outbox.it.crash;

import dev.outbox.it.support.ExampleService;
import dev.outbox.it.support.ExampleService.Reply;
import dev.outbox.it.support.KafkaTopic;
import dev.outbox.it.support.LibertyProcess;
import dev.outbox.it.support.OutboxDatabase;
import dev.outbox.it.support.OutboxDatabase.StoredEvent;
import dev.outbox.it.support.Settings;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.math.BigDecimal;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import static dev.outbox.it.support.Eventually.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The publisher's crash windows (R7.2) on a real Liberty process and PostgreSQL, through JMS and through Kafka:
 * a backlog of 10 paid orders (20 events) is built with the publisher off, the server halts (no clean shutdown)
 * at a failpoint with the first batch in flight (the 10 OrderPlaced; strict ordering holds each OrderPaid
 * behind its own), then starts again without it and takes over once the dead claimer's lease runs out. Every
 * order the client saw committed must reach its consumer's business effect exactly once (JMS: one shipment;
 * Kafka: one settled invoice, one entry per event), with its event ids and versions unchanged; sends may
 * repeat and the inbox absorbs them, and the suite counts them.
 */
@EnabledIfSystemProperty(named = "it.db", matches = "postgresql")
class CrashWindowIT {

    private static final Duration TAKEOVER = Duration.ofSeconds(60);
    private static final int ORDERS = 10;
    private static final ExampleService SERVICE = new ExampleService(Settings.required("it.crash.base.url"));
    private static final LibertyProcess SERVER = new LibertyProcess(Path.of(Settings.required("it.wlp")),
            "outbox-it-crash", SERVICE);
    private final OutboxDatabase db = new OutboxDatabase(Settings.required("it.crash.jdbc.url"), "outbox", "outbox");

    /**
     * The Kafka windows route every type to the test broker, on topics and a consumer group of their own so the
     * Kafka suite's server never reads their events.
     */
    private static final String KAFKA_ROUTE = "<server>"
            + "<variable name=\"outbox.publisher.transport\" value=\"kafka\"/>"
            + "<variable name=\"outbox.kafka.bootstrap-servers\" value=\"" + Settings.required("it.kafka.bootstrap") + "\"/>"
            + "<variable name=\"outbox.kafka.topic\" value=\"crash.{aggregateType}\"/>"
            + "<variable name=\"example.invoicing.topic\" value=\"crash.Order\"/>"
            + "<variable name=\"example.invoicing.group\" value=\"invoicing-crash\"/>"
            + "<variable name=\"mp.messaging.incoming.order-events.topic\" value=\"crash.Order\"/>"
            + "<variable name=\"mp.messaging.incoming.order-events.group.id\" value=\"loyalty-crash\"/>"
            + "</server>";

    @BeforeAll
    static void noFailpointLeftOver() throws Exception {
        SERVER.deleteOverride("failpoint.xml");
        SERVER.deleteOverride("transport.xml");
    }

    /** Each window starts from a stopped server, whatever the last one left. */
    @AfterEach
    void stopServer() throws Exception {
        SERVER.stop();
        SERVER.kill();
        SERVER.awaitExit(Duration.ofSeconds(30));
    }

    @AfterAll
    static void disarm() throws Exception {
        SERVER.deleteOverride("failpoint.xml");
        SERVER.deleteOverride("transport.xml");
    }

    @ParameterizedTest(name = "{0}: halted at {1}, then taken over")
    @CsvSource({"jms, before-claim-commit", "jms, after-claim-before-send", "jms, after-send-before-confirm",
            "jms, before-confirm-commit", "jms, after-confirm",
            "kafka, before-claim-commit", "kafka, after-claim-before-send", "kafka, after-send-before-confirm",
            "kafka, before-confirm-commit", "kafka, after-confirm"})
    void everyCommittedOrderReachesItsConsumerExactlyOnceAfterACrashAt(String transport, String failpoint)
            throws Exception {
        boolean kafka = transport.equals("kafka");
        if (kafka) {
            SERVER.writeOverride("transport.xml", KAFKA_ROUTE);
        } else {
            SERVER.deleteOverride("transport.xml");
        }
        // 1. A backlog: orders placed and paid while the publisher is off.
        SERVER.writeOverride("failpoint.xml", "<server><variable name=\"outbox.publisher.enabled\" value=\"false\"/></server>");
        SERVER.start();
        long duplicatesBefore = SERVICE.stats().body().getJsonNumber("duplicatesAbsorbed").longValue();
        List<String> orders = new ArrayList<>();
        for (int i = 0; i < ORDERS; i++) {
            Reply placed = SERVICE.placeOrder("crash-" + transport + "-" + failpoint + "-" + UUID.randomUUID(),
                    new BigDecimal("5"));
            assertEquals(201, placed.status(), placed.toString());
            assertEquals(200, SERVICE.pay(placed.orderId(), 1).status());
            orders.add(placed.orderId());
        }
        Map<String, List<String>> identities = new HashMap<>();
        for (String order : orders) {
            identities.put(order, identities(db.eventsOf(order)));
        }
        SERVER.stop();

        // 2. The publisher's first batch holds the whole backlog when the JVM halts at the failpoint.
        SERVER.writeOverride("failpoint.xml", "<server><variable name=\"outbox.failpoint\" value=\"" + failpoint
                + "\"/></server>");
        SERVER.launch();
        assertTrue(SERVER.awaitExit(Duration.ofSeconds(60)), "the failpoint " + failpoint + " halted the server");

        // 3. The takeover: the same server without the failpoint, a new claimer id.
        SERVER.deleteOverride("failpoint.xml");
        SERVER.start();
        for (String order : orders) {
            List<StoredEvent> delivered = await(TAKEOVER, "the events of " + order + " delivered after the takeover",
                    () -> db.eventsOf(order), events -> events.size() == 2
                            && events.stream().allMatch(e -> e.state().equals("DELIVERED")));
            assertEquals(identities.get(order), identities(delivered), "event ids and versions never change (R2.2)");
        }
        for (String order : orders) {
            await(TAKEOVER, "the business effect of " + order + " (" + transport + ")", () -> effects(kafka, order),
                    n -> n == 1);
        }
        // Let redeliveries of messages the halted server's engine still held arrive, then check nothing doubled.
        Thread.sleep(3000);
        for (String order : orders) {
            assertEquals(1, effects(kafka, order), "exactly one business effect for " + order + " through " + transport);
            if (kafka) {
                assertEquals(2, db.countWhere("invoice_entry", "order_id", order),
                        "each of the order's two events applied exactly once by invoicing: " + order);
            }
        }
        long duplicates = SERVICE.stats().body().getJsonNumber("duplicatesAbsorbed").longValue() - duplicatesBefore;
        if (kafka) {
            assertKafkaSends(failpoint, orders);
            // The consumer commits offsets asynchronously, so a halt can also make it re-read records it had
            // applied: duplicates at the consumer are expected in every window, and the inbox absorbs them.
            System.out.println("crash window kafka " + failpoint + ": duplicates absorbed by invoicing " + duplicates);
            return;
        }
        // Strict ordering puts the ORDERS OrderPlaced events in the first batch; each OrderPaid waits behind its own.
        System.out.println("crash window " + transport + " " + failpoint + ": " + ORDERS + " events in the halted batch, " + ORDERS
                + " more behind them; duplicates absorbed after the takeover: " + duplicates);
        if (failpoint.equals("after-send-before-confirm") || failpoint.equals("before-confirm-commit")) {
            // The broker held the batch but the table never said so: the takeover sends it again (R4.3), and
            // the inbox, not luck, keeps the effect single.
            assertTrue(duplicates >= ORDERS, "the re-sent batch reached the consumer and the inbox absorbed it: "
                    + duplicates);
        } else {
            assertEquals(0, duplicates, "nothing was sent twice");
        }
    }

    /**
     * What the broker really holds, read back from the topic: one record per event, plus one more per event of
     * the halted batch in the windows where the broker had it but the table did not say so (R4.3).
     */
    private void assertKafkaSends(String failpoint, List<String> orders) {
        java.util.Set<String> placed = new java.util.HashSet<>();
        java.util.Set<String> all = new java.util.HashSet<>();
        for (String order : orders) {
            for (StoredEvent event : db.eventsOf(order)) {
                all.add(event.eventId().toString());
                if (event.eventType().equals("OrderPlaced")) {
                    placed.add(event.eventId().toString());
                }
            }
        }
        Map<String, Long> copies = KafkaTopic.records(Settings.required("it.kafka.bootstrap"), "crash.Order",
                        Duration.ofSeconds(2)).stream()
                .map(r -> KafkaTopic.header(r, "outboxEventId")).filter(all::contains)
                .collect(java.util.stream.Collectors.groupingBy(id -> id, java.util.stream.Collectors.counting()));
        assertEquals(all, copies.keySet(), "every event of the backlog is on the topic");
        boolean resent = failpoint.equals("after-send-before-confirm") || failpoint.equals("before-confirm-commit");
        for (String id : all) {
            long expected = resent && placed.contains(id) ? 2 : 1;
            assertEquals(expected, copies.get(id), "copies on the topic of " + id + " after a halt at " + failpoint);
        }
        System.out.println("crash window kafka " + failpoint + ": records on the topic " + copies.values().stream()
                .mapToLong(Long::longValue).sum() + " for " + all.size() + " events");
    }

    /** The consumer's business effect for one order: a shipment (JMS, shipping) or a settled invoice (Kafka). */
    private long effects(boolean kafka, String order) {
        return kafka ? db.count("invoice", "order_id = '" + order + "' AND status = 'SETTLED'")
                : db.countWhere("shipment", "order_id", order);
    }

    private static List<String> identities(List<StoredEvent> events) {
        return events.stream().map(e -> e.eventId() + "@" + e.aggregateVersion()).toList();
    }
}
