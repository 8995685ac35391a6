package dev.outbox.it.wildfly;

import dev.outbox.it.crash.CrashWindow;
import dev.outbox.it.support.ExampleService;
import dev.outbox.it.support.OutboxDatabase;
import dev.outbox.it.support.Settings;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.file.Path;
import java.util.Map;

/**
 * The publisher's crash windows (R7.2) on WildFly and PostgreSQL, through Artemis (and one through Kafka): the
 * server halts with a batch in flight (before its send, after the broker took it, before the confirm committed), starts again and takes
 * over once the dead claimer's lease runs out; every paid order is shipped exactly once, the re-sent batch is
 * absorbed by the inbox ({@link CrashWindow}, the scenario Liberty's CrashWindowIT runs).
 */
class WildFlyCrashWindowIT {

    private static final ExampleService SERVICE = new ExampleService(Settings.required("it.crash.base.url"));
    private static final WildFlyProcess SERVER = new WildFlyProcess(Path.of(Settings.required("it.wildfly.crash.home")),
            Integer.parseInt(Settings.required("it.wildfly.crash.offset")),
            Map.of("postgresql.host", "127.0.0.1",
                    "postgresql.port", Settings.required("it.crash.pg.port"),
                    "postgresql.database", "outbox_crash",
                    // A takeover within seconds of a halt
                    "outbox.publisher.lease-ms", "2000",
                    "outbox.publisher.interval-ms", "500"),
            SERVICE);
    private final OutboxDatabase db = new OutboxDatabase(Settings.required("it.crash.jdbc.url"), "outbox", "outbox");

    /** Each window starts from a stopped server, whatever the last one left. */
    @AfterEach
    void stopServer() throws Exception {
        SERVER.stop();
        SERVER.kill();
    }

    @ParameterizedTest(name = "jms: halted at {0}, then taken over")
    @ValueSource(strings = {"after-claim-before-send", "after-send-before-confirm", "before-confirm-commit"})
    void everyCommittedOrderIsShippedExactlyOnceAfterACrashAt(String failpoint) throws Exception {
        CrashWindow.jms(SERVER, SERVICE, db).haltAndTakeOver(failpoint);
    }

    /**
     * The Kafka transport and the invoicing consumer (the outbox's KafkaInbox) on WildFly, whose kafka-clients
     * module the EAR uses there: the batch the broker took but the table never confirmed is on the topic twice,
     * and every order is invoiced exactly once.
     */
    @ParameterizedTest(name = "kafka: halted at {0}, then taken over")
    @ValueSource(strings = {"after-send-before-confirm"})
    void everyCommittedOrderIsInvoicedExactlyOnceAfterACrashAt(String failpoint) throws Exception {
        CrashWindow.kafka(SERVER, SERVICE, db, Settings.required("it.kafka.bootstrap")).haltAndTakeOver(failpoint);
    }
}
