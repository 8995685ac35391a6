package dev.outbox.it.adoption;

import dev.outbox.it.support.CrashServer;
import dev.outbox.it.support.ExampleService;
import dev.outbox.it.support.LibertyProcess;
import dev.outbox.it.support.ServerLog;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

import java.nio.file.Files;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

import static dev.outbox.it.support.Eventually.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Issue 42 item 5, R5.5, as an adopter meets it on Open Liberty: the Reactive Messaging channel a ReactiveInbox
 * consumer reads commits offsets by itself ({@code enable.auto.commit=true} in server.xml), so a crash between the
 * commit and the inbox's transaction would lose records. The application does not start, and the log names the
 * variable. On the H2 run's process-level server, with a configuration override removed after the test; no broker is
 * needed, since the channel is refused before anything connects.
 */
@EnabledIfSystemProperty(named = "it.db", matches = "h2")
class AutoCommitChannelIT {

    private static final String OVERRIDE = "loyalty-auto-commit.xml";
    private static final String VARIABLE = "mp.messaging.incoming.order-events.enable.auto.commit";
    /** The refusal's words ({@code InvalidSettingException}), and Liberty's line for an application that started. */
    private static final List<String> OUTCOMES = List.of(VARIABLE, "CWWKZ0001I");

    private final ExampleService service = CrashServer.service();
    private final LibertyProcess server = CrashServer.process(service);

    @AfterEach
    void restoreTheServer() throws Exception {
        server.stop();
        server.kill();
        server.deleteOverride(OVERRIDE);
    }

    @Test
    void aReactiveInboxChannelThatCommitsOffsetsByItselfStopsTheStartNamingTheVariable() throws Exception {
        server.deleteOverride("failpoint.xml");
        // example.kafka.enabled makes the example watch its loyalty consumer (ReactiveInbox.watch), as a service does
        server.writeOverride(OVERRIDE, """
                <server>
                  <variable name="example.kafka.enabled" value="true"/>
                  <variable name="%s" value="true"/>
                </server>
                """.formatted(VARIABLE));
        Files.deleteIfExists(server.serverDir().resolve("logs/messages.log")); // an earlier start's lines are no answer
        server.launch(); // no readiness to wait for: the application is expected not to start
        String outcome = await(Duration.ofSeconds(120), "the start-up refusal, or the application started",
                () -> ServerLog.linesSoFar(server.serverDir())
                        .filter(line -> OUTCOMES.stream().anyMatch(line::contains)).findFirst(),
                Optional::isPresent).orElseThrow();
        assertTrue(outcome.contains(VARIABLE) && outcome.contains("must be false"), "the example started on a channel"
                + " that commits offsets of records the inbox has not applied: " + outcome);
        assertEquals(0, ServerLog.linesSoFar(server.serverDir()).filter(line -> line.contains("CWWKZ0001I")).count(),
                "the application never started");
    }
}
