package dev.outbox.it.recovery;

import dev.outbox.internal.persistence.RecordedRow;
import dev.outbox.it.support.CrashServer;
import dev.outbox.it.support.ExampleService;
import dev.outbox.it.support.ExampleService.Reply;
import dev.outbox.it.support.LibertyProcess;
import dev.outbox.it.support.OutboxDatabase;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

import java.math.BigDecimal;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.UUID;

import static dev.outbox.it.support.Eventually.await;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Issue 41 (R5.7) across a restart: an MDB consumer holds a waiting version when its server restarts, and an operator
 * then skips the missing one before any message reaches the consumer again. The version that waited must be applied
 * all the same: the example watches its MDB at start ({@code QueueWatch.watch}), which is where the inbox learns the
 * queue to nudge it on. On H2, the embedded default, on the H2 run's process-level server.
 */
@EnabledIfSystemProperty(named = "it.db", matches = "h2")
class IdleReleaseAfterRestartIT {

    private static final Duration SOON = Duration.ofSeconds(30);
    private final ExampleService service = CrashServer.service();
    private final LibertyProcess server = CrashServer.process(service);
    private final OutboxDatabase db = CrashServer.database();

    @AfterEach
    void stopServer() throws Exception {
        server.stop();
        server.kill();
    }

    @Test
    void aSkipAfterARestartReleasesTheWaitingVersionBeforeTheConsumersNextMessage() throws Exception {
        server.deleteOverride("failpoint.xml");
        server.start();
        Reply placed = service.placeOrder("restart-skip-" + UUID.randomUUID(), BigDecimal.ONE);
        assertEquals(201, placed.status(), placed.toString());
        String order = placed.orderId();
        await(SOON, "OrderPlaced processed by shipping", () -> processed(order), n -> n == 1);
        OffsetDateTime now = OffsetDateTime.now(ZoneOffset.UTC);
        db.using(RecordedRow.pending("Order", order, 3, "OrderAmended").recordedAt(now).dueAt(now)::insert);
        await(SOON, "version 3 waiting at shipping for version 2", () -> db.count("inbox_waiting",
                "consumer = 'shipping' AND aggregate_id = '" + order + "'"), n -> n == 1);

        server.stop();
        server.start();
        Reply skipped = service.skipGap("shipping", order, 2, "version 2 was never recorded");
        assertEquals(200, skipped.status(), skipped.toString());

        await(SOON, "version 3 applied after the restart and the skip, with no message for shipping",
                () -> processed(order), n -> n == 2);
    }

    private long processed(String order) {
        return db.count("processed_event", "consumer = 'shipping' AND aggregate_id = '" + order + "'");
    }
}
