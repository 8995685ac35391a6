package dev.outbox.it.adoption;

import dev.outbox.it.support.CrashServer;
import dev.outbox.it.support.StartAttempt;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

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

    private static final String VARIABLE = "mp.messaging.incoming.order-events.enable.auto.commit";

    private final StartAttempt start = new StartAttempt(CrashServer.process(CrashServer.service()),
            "loyalty-auto-commit.xml");

    @AfterEach
    void restoreTheServer() throws Exception {
        start.restore();
    }

    @Test
    void aReactiveInboxChannelThatCommitsOffsetsByItselfStopsTheStartNamingTheVariable() throws Exception {
        // example.kafka.enabled makes the example watch its loyalty consumer (ReactiveInbox.watch), as a service does
        String outcome = start.firstOutcome("""
                <server>
                  <variable name="example.kafka.enabled" value="true"/>
                  <variable name="%s" value="true"/>
                </server>
                """.formatted(VARIABLE), VARIABLE); // the refusal's words (InvalidSettingException)
        assertTrue(outcome.contains(VARIABLE) && outcome.contains("must be false"), "the example started on a channel"
                + " that commits offsets of records the inbox has not applied: " + outcome);
        assertEquals(0, start.applicationStarts(), "the application never started");
    }
}
