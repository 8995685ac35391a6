package dev.outbox.it.crash;

import dev.outbox.it.support.CrashServer;
import dev.outbox.it.support.ExampleService;
import dev.outbox.it.support.LibertyProcess;
import dev.outbox.it.support.OutboxDatabase;
import dev.outbox.it.support.Settings;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.time.Duration;
import java.util.Map;

/**
 * The publisher's crash windows (R7.2) on a real Liberty process and PostgreSQL, through JMS and through Kafka:
 * each case halts the server at one failpoint with a batch in flight and takes over ({@link CrashWindow}).
 */
@EnabledIfSystemProperty(named = "it.db", matches = "postgresql")
class CrashWindowIT {

    private static final ExampleService SERVICE = CrashServer.service();
    private static final LibertyProcess SERVER = CrashServer.process(SERVICE);
    private final OutboxDatabase db = CrashServer.database();

    @BeforeAll
    static void noSettingsLeftOver() throws Exception {
        SERVER.use(Map.of());
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
        SERVER.use(Map.of());
    }

    @ParameterizedTest(name = "{0}: halted at {1}, then taken over")
    @CsvSource({"jms, before-claim-commit", "jms, after-claim-before-send", "jms, after-send-before-confirm",
            "jms, before-confirm-commit", "jms, after-confirm",
            "kafka, before-claim-commit", "kafka, after-claim-before-send", "kafka, after-send-before-confirm",
            "kafka, before-confirm-commit", "kafka, after-confirm"})
    void everyCommittedOrderReachesItsConsumerExactlyOnceAfterACrashAt(String transport, String failpoint)
            throws Exception {
        CrashWindow window = transport.equals("kafka")
                ? CrashWindow.kafka(SERVER, SERVICE, db, Settings.required("it.kafka.bootstrap"))
                : CrashWindow.jms(SERVER, SERVICE, db);
        window.haltAndTakeOver(failpoint);
    }
}
