package dev.outbox.it.adoption;

import dev.outbox.it.support.CrashServer;
import dev.outbox.it.support.StartAttempt;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

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

    /** The refusal's words ({@code AssuredPersistence}). */
    private static final String REFUSAL = "which the messaging engine may discard";

    private final StartAttempt start = new StartAttempt(CrashServer.process(CrashServer.service()),
            "outbox-jms-reliable-persistent.xml");

    @AfterEach
    void restoreTheServer() throws Exception {
        start.restore();
    }

    @Test
    void aConnectionFactoryThatMayLoseAcknowledgedMessagesStopsTheStartNamingTheSetting() throws Exception {
        String outcome = start.firstOutcome("""
                <server>
                  <jmsConnectionFactory id="DefaultJMSConnectionFactory" jndiName="jms/DefaultJMSConnectionFactory">
                    <properties.wasJms persistentMapping="ReliablePersistent"/>
                  </jmsConnectionFactory>
                </server>
                """, REFUSAL);
        assertTrue(outcome.contains(REFUSAL), "the example started with a connection factory that may lose"
                + " acknowledged messages: " + outcome);
        assertTrue(outcome.contains("ReliablePersistent") && outcome.contains("persistentMapping=\"AssuredPersistent\"")
                && outcome.contains("outbox.jms.connection-factory"), "names the mapping, the setting and the fix: "
                + outcome);
        assertEquals(0, start.applicationStarts(), "the application never started");
    }
}
