package dev.outbox.it.adoption;

import dev.outbox.it.support.CrashServer;
import dev.outbox.it.support.ExampleService;
import dev.outbox.it.support.LibertyProcess;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;

import static dev.outbox.it.support.Eventually.await;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Issue 42 item 3, R1.1, as an adopter meets it on Open Liberty: {@code outbox.datasource} names a pool the server
 * does not enlist in JTA transactions ({@code transactional="false"}), beside the business change's own. Every row
 * the outbox wrote would commit on its own, whatever the command's transaction did: a dual write. The application
 * does not start, and the log says which setting and what to change. On the H2 run's process-level server, with
 * a configuration override removed after the test.
 */
@EnabledIfSystemProperty(named = "it.db", matches = "h2")
class NonJtaDataSourceIT {

    private static final String OVERRIDE = "outbox-datasource-not-jta.xml";

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
        server.launch(); // the EAR never answers: wait for the log (Liberty starts a new messages.log)
        String refusal = await(Duration.ofSeconds(90), "the start-up refusal naming outbox.datasource",
                () -> messagesLog().lines().filter(line -> line.contains("not part of the caller's JTA"))
                        .findFirst(), Optional::isPresent).orElseThrow();
        assertTrue(refusal.contains("jdbc/outboxAlone") && refusal.contains("outbox.datasource")
                && refusal.contains("transactional=\"false\""), "names the datasource, the setting and the fix: "
                + refusal);
        int status;
        try {
            status = service.stats().status();
        } catch (RuntimeException notAnswering) {
            status = -1;
        }
        assertNotEquals(200, status, "the application did not start, so no command could write alone");
    }

    private String messagesLog() {
        try {
            Path log = server.serverDir().resolve("logs/messages.log");
            return Files.exists(log) ? Files.readString(log) : "";
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
