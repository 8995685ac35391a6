package dev.outbox.it.flow;

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
import java.util.UUID;

import static dev.outbox.it.support.Eventually.await;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The after-commit wake-up ({@code publish.WakeUp}): a business commit starts a publisher run at once, so an
 * event does not wait for the timer. The timer here first fires after ten minutes; only the wake-up can deliver
 * within seconds.
 */
@EnabledIfSystemProperty(named = "it.db", matches = "postgresql")
class CommitWakeUpIT {

    private final ExampleService service = CrashServer.service();
    private final LibertyProcess server = CrashServer.process(service);
    private final OutboxDatabase db = CrashServer.database();

    @AfterEach
    void restoreTheCrashServer() throws Exception {
        server.deleteOverride("wakeup.xml");
        server.stop();
        server.kill();
    }

    @Test
    void aCommitWakesThePublisherLongBeforeItsTimer() throws Exception {
        // Named after itests.xml (interval 500 ms): Liberty applies override files in name order, the last wins.
        server.writeOverride("wakeup.xml", "<server><variable name=\"outbox.publisher.interval-ms\""
                + " value=\"600000\"/></server>");
        server.start();
        String tag = "wake-up-" + UUID.randomUUID();
        Reply placed = service.placeOrder(tag, BigDecimal.ONE);
        assertEquals(201, placed.status(), placed.toString());
        await(Duration.ofSeconds(15), "the OrderPlaced of " + placed.orderId() + " delivered with the timer ten"
                + " minutes away", () -> db.count("outbox_event", "aggregate_id = '" + placed.orderId()
                + "' AND state = 'DELIVERED'"), n -> n == 1);
    }
}
