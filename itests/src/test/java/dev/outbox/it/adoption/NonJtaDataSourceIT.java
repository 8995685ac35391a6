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
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Issue 42 item 3, R1.1, as an adopter meets it on Open Liberty: {@code outbox.datasource} names a pool the server
 * does not enlist in JTA transactions ({@code transactional="false"}), beside the business change's own. Every row
 * the outbox wrote there would commit on its own, whatever the command's transaction did: a dual write. The
 * application does not start, and the log says which setting and what to change. On the H2 run's process-level
 * server, with a configuration override removed after the test.
 */
@EnabledIfSystemProperty(named = "it.db", matches = "h2")
class NonJtaDataSourceIT {

    private static final String OVERRIDE = "outbox-datasource-not-jta.xml";
    /** The refusal's words ({@code NotInTransactionException}), and Liberty's lines for an application that started. */
    private static final List<String> OUTCOMES = List.of("is not part of the caller's JTA transaction", "CWWKZ0001I");

    private final ExampleService service = CrashServer.service();
    private final LibertyProcess server = CrashServer.process(service);

    @AfterEach
    void restoreTheServer() throws Exception {
        server.stop();
        server.kill();
        server.deleteOverride(OVERRIDE);
    }

    @Test
    void anOutboxDataSourceOutsideTheCallersTransactionStopsTheStartNamingTheSetting() throws Exception {
        server.deleteOverride("failpoint.xml");
        server.writeOverride(OVERRIDE, """
                <server>
                  <dataSource id="outboxAlone" jndiName="jdbc/outboxAlone" jdbcDriverRef="h2Driver"
                              transactional="false" isolationLevel="TRANSACTION_READ_COMMITTED">
                    <properties URL="${h2.url}" user="sa" password=""/>
                  </dataSource>
                  <variable name="outbox.datasource" value="jdbc/outboxAlone"/>
                </server>
                """);
        Files.deleteIfExists(messagesLog()); // an earlier start's lines are no answer
        server.launch(); // no readiness to wait for: the application is expected not to start
        String outcome = await(Duration.ofSeconds(120), "the start-up refusal, or the application started",
                () -> lines().filter(line -> OUTCOMES.stream().anyMatch(line::contains)).findFirst(),
                Optional::isPresent).orElseThrow();
        assertTrue(outcome.contains(OUTCOMES.get(0)), "the example started on a datasource outside the caller's"
                + " transaction, where a rolled-back command would publish its events: " + outcome);
        assertTrue(outcome.contains("jdbc/outboxAlone") && outcome.contains("outbox.datasource")
                && outcome.contains("transactional=\"false\""), "names the datasource, the setting and the fix: "
                + outcome);
        assertEquals(0, lines().filter(line -> line.contains("CWWKZ0001I")).count(), "the application never started");
        int status;
        try {
            status = service.stats().status();
        } catch (RuntimeException notAnswering) {
            status = -1;
        }
        assertNotEquals(200, status, "the application did not start, so no command could write alone");
    }

    private Path messagesLog() {
        return server.serverDir().resolve("logs/messages.log");
    }

    private java.util.stream.Stream<String> lines() {
        return ServerLog.linesSoFar(server.serverDir());
    }
}
