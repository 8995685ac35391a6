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
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * The publisher's crash windows (R7.2) on a real Liberty process, through JMS and through Kafka: each case halts
 * the server at one failpoint and takes over ({@link CrashWindow}). On PostgreSQL every window through JMS;
 * on MariaDB, to keep the build's time, the three with a batch in flight (sent or not, confirmed or not) through
 * JMS: what differs between databases is the claim and the confirm, which are the same statements whatever the
 * transport. The PostgreSQL run sends through Kafka only in the two windows where a batch sits at the broker
 * unconfirmed. The full tier ({@code -Pfull}, or {@code -Dit.crash.every-window=true}) runs every window on both
 * transports on PostgreSQL and MariaDB.
 */
@EnabledIfSystemProperty(named = "it.db", matches = "postgresql|mariadb")
class CrashWindowIT {

    private static final ExampleService SERVICE = CrashServer.service();
    private static final LibertyProcess SERVER = CrashServer.process(SERVICE);
    private final OutboxDatabase db = CrashServer.database();

    private static final List<String> EVERY_WINDOW = List.of("before-claim-commit", "after-claim-before-send",
            "after-send-before-confirm", "before-confirm-commit", "after-confirm");
    private static final List<String> BATCH_IN_FLIGHT = List.of("after-claim-before-send",
            "after-send-before-confirm", "before-confirm-commit");

    /** The windows where a batch sits at the broker unconfirmed: what a transport's send semantics could change. */
    private static final List<String> SENT_UNCONFIRMED = List.of("after-send-before-confirm", "before-confirm-commit");

    static Stream<Arguments> windows() {
        if (Boolean.getBoolean("it.crash.every-window")) { // the full tier
            return Stream.of("jms", "kafka").flatMap(t -> EVERY_WINDOW.stream().map(w -> Arguments.of(t, w)));
        }
        if (Settings.required("it.db").equals("postgresql")) {
            // The windows before the send are the same code whatever the transport: JMS runs them all.
            return Stream.concat(EVERY_WINDOW.stream().map(w -> Arguments.of("jms", w)),
                    SENT_UNCONFIRMED.stream().map(w -> Arguments.of("kafka", w)));
        }
        return BATCH_IN_FLIGHT.stream().map(w -> Arguments.of("jms", w));
    }

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
    @MethodSource("windows")
    void everyCommittedOrderReachesItsConsumerExactlyOnceAfterACrashAt(String transport, String failpoint)
            throws Exception {
        CrashWindow window = transport.equals("kafka")
                ? CrashWindow.kafka(SERVER, SERVICE, db, Settings.required("it.kafka.bootstrap"))
                : CrashWindow.jms(SERVER, SERVICE, db);
        window.haltAndTakeOver(failpoint);
    }
}
