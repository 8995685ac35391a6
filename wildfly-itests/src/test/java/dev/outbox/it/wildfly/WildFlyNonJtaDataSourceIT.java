package dev.outbox.it.wildfly;

import dev.outbox.it.support.ExampleService;
import dev.outbox.it.support.OutboxDatabase;
import dev.outbox.it.support.Settings;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;

import static dev.outbox.it.support.Eventually.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Issue 42 item 3, R1.1, on WildFly: {@code outbox.datasource} names a datasource with {@code jta=false} (the crash
 * server's test-only {@code OutboxAlone}, on the same PostgreSQL database as the business change's). Every row the
 * outbox wrote there would commit on its own, whatever the command's transaction did. The EAR's deployment fails, the
 * server log says which setting and what to change; the web module WildFly still serves after a failed deployment at
 * boot refuses the write (the recorder asks the probe's verdict), and nothing commits.
 */
class WildFlyNonJtaDataSourceIT {

    private static final Path HOME = Path.of(Settings.required("it.wildfly.crash.home"));
    private static final OutboxDatabase DB = new OutboxDatabase(Settings.required("it.crash.jdbc.url"), "outbox",
            "outbox");
    private static final ExampleService SERVICE = new ExampleService(Settings.required("it.crash.base.url"));
    private static final WildFlyProcess SERVER = new WildFlyProcess(HOME,
            Integer.parseInt(Settings.required("it.wildfly.crash.offset")),
            Map.of("postgresql.host", "127.0.0.1",
                    "postgresql.port", Settings.required("it.crash.pg.port"),
                    "postgresql.database", "outbox_crash",
                    "outbox.datasource", "java:jboss/datasources/OutboxAlone"),
            SERVICE);
    /** The refusal's words ({@code NotInTransactionException}), and WildFly's line for a deployed EAR. */
    private static final List<String> OUTCOMES = List.of("is not part of the caller's JTA transaction",
            "WFLYSRV0010I");

    /**
     * Killed, not stopped: its publisher keeps failing on the refused datasource, and WildFly's graceful stop waits
     * 30 s for it; nothing of this server's state matters after the test.
     */
    @AfterEach
    void killServer() throws Exception {
        SERVER.kill();
    }

    @Test
    void anOutboxDataSourceWithJtaFalseStopsTheDeploymentNamingTheSetting() throws Exception {
        Files.deleteIfExists(serverLog()); // an earlier start's lines are no answer
        SERVER.launch();
        String outcome = await(Duration.ofSeconds(180), "the start-up refusal, or the EAR deployed",
                () -> lines().filter(line -> OUTCOMES.stream().anyMatch(line::contains)).findFirst(),
                Optional::isPresent).orElseThrow();
        assertTrue(outcome.contains(OUTCOMES.get(0)), "the example was deployed on a jta=false datasource, where a"
                + " rolled-back command would publish its events: " + outcome);
        assertTrue(outcome.contains("java:jboss/datasources/OutboxAlone") && outcome.contains("outbox.datasource")
                && outcome.contains("jta=true"), "names the datasource, the setting and the fix: " + outcome);
        // At boot WildFly keeps the failed deployment's web module serving: the recorder refuses the write itself.
        await(Duration.ofSeconds(120), "WildFly's line for a finished boot (WFLYSRV0025 or, here, WFLYSRV0026)",
                () -> lines().anyMatch(line -> line.contains("WFLYSRV0025") || line.contains("WFLYSRV0026")),
                Boolean::booleanValue);
        long events = DB.count("outbox_event", "1 = 1");
        int status = SERVICE.placeOrder("not-jta", new BigDecimal("10.00")).status();
        assertTrue(status >= 400, "an order was accepted on a jta=false outbox datasource: " + status);
        assertEquals(List.of(), DB.ordersOf("not-jta"), "the order rolled back with its refused event");
        assertEquals(events, DB.count("outbox_event", "1 = 1"), "no event row committed on its own");
    }

    private static Path serverLog() {
        return HOME.resolve("standalone/log/server.log");
    }

    private static Stream<String> lines() {
        try {
            // ISO-8859-1: a line the server is still writing may end inside a multi-byte character (UTF-8 would fail)
            return Files.exists(serverLog())
                    ? Files.readString(serverLog(), StandardCharsets.ISO_8859_1).lines()
                    : Stream.empty();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
