package dev.outbox.it.adoption;

import dev.outbox.it.support.CrashServer;
import dev.outbox.it.support.ExampleService;
import dev.outbox.it.support.LibertyProcess;
import dev.outbox.it.support.ServerLog;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

import static dev.outbox.it.support.Eventually.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Issue 45 item 3, R4.7, as an adopter meets it on Open Liberty: the connection factory the publisher sends with keeps
 * the engine's default persistent mapping (ReliablePersistent), with which the engine may discard a message it
 * acknowledged when it fails (the kill -9 soak lost an OrderPaid so). The application does not start, and the log
 * names the factory and the server.xml setting. On the H2 run's process-level server, with a configuration override
 * removed after the test.
 */
@EnabledIfSystemProperty(named = "it.db", matches = "h2")
class UnassuredJmsPersistenceIT {

    private static final String OVERRIDE = "outbox-jms-reliable-persistent.xml";
    /** The refusal's words ({@code AssuredPersistence}), and Liberty's line for an application that started. */
    private static final List<String> OUTCOMES = List.of("which the messaging engine may discard", "CWWKZ0001I");

    private final ExampleService service = CrashServer.service();
    private final LibertyProcess server = CrashServer.process(service);

    @AfterEach
    void restoreTheServer() throws Exception {
        server.stop();
        server.kill();
        server.deleteOverride(OVERRIDE);
    }

    @Test
    void aConnectionFactoryThatMayLoseAcknowledgedMessagesStopsTheStartNamingTheSetting() throws Exception {
        server.deleteOverride("failpoint.xml");
        server.writeOverride(OVERRIDE, """
                <server>
                  <jmsConnectionFactory id="DefaultJMSConnectionFactory" jndiName="jms/DefaultJMSConnectionFactory">
                    <properties.wasJms persistentMapping="ReliablePersistent"/>
                  </jmsConnectionFactory>
                </server>
                """);
        Files.deleteIfExists(messagesLog()); // an earlier start's lines are no answer
        server.launch(); // no readiness to wait for: the application is expected not to start
        String outcome = await(Duration.ofSeconds(120), "the start-up refusal, or the application started",
                () -> lines().filter(line -> OUTCOMES.stream().anyMatch(line::contains)).findFirst(),
                Optional::isPresent).orElseThrow();
        assertTrue(outcome.contains(OUTCOMES.get(0)), "the example started with a connection factory that may lose"
                + " acknowledged messages: " + outcome);
        assertTrue(outcome.contains("ReliablePersistent") && outcome.contains("persistentMapping=\"AssuredPersistent\"")
                && outcome.contains("outbox.jms.connection-factory"), "names the mapping, the setting and the fix: "
                + outcome);
        assertEquals(0, lines().filter(line -> line.contains("CWWKZ0001I")).count(), "the application never started");
    }

    private Path messagesLog() {
        return server.serverDir().resolve("logs/messages.log");
    }

    private java.util.stream.Stream<String> lines() {
        return ServerLog.linesSoFar(server.serverDir());
    }
}
