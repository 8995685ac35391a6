package dev.outbox.it.adoption;

import dev.outbox.it.support.CrashServer;
import dev.outbox.it.support.ExampleService;
import dev.outbox.it.support.StartAttempt;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

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

    /** The refusal's words ({@code NotInTransactionException}). */
    private static final String REFUSAL = "is not part of the caller's JTA transaction";

    private final ExampleService service = CrashServer.service();
    private final StartAttempt start = new StartAttempt(CrashServer.process(service), "outbox-datasource-not-jta.xml");

    @AfterEach
    void restoreTheServer() throws Exception {
        start.restore();
    }

    @Test
    void anOutboxDataSourceOutsideTheCallersTransactionStopsTheStartNamingTheSetting() throws Exception {
        String outcome = start.firstOutcome("""
                <server>
                  <dataSource id="outboxAlone" jndiName="jdbc/outboxAlone" jdbcDriverRef="h2Driver"
                              transactional="false" isolationLevel="TRANSACTION_READ_COMMITTED">
                    <properties URL="${h2.url}" user="sa" password=""/>
                  </dataSource>
                  <variable name="outbox.datasource" value="jdbc/outboxAlone"/>
                </server>
                """, REFUSAL);
        assertTrue(outcome.contains(REFUSAL), "the example started on a datasource outside the caller's"
                + " transaction, where a rolled-back command would publish its events: " + outcome);
        assertTrue(outcome.contains("jdbc/outboxAlone") && outcome.contains("outbox.datasource")
                && outcome.contains("transactional=\"false\""), "names the datasource, the setting and the fix: "
                + outcome);
        assertEquals(0, start.applicationStarts(), "the application never started");
        int status;
        try {
            status = service.stats().status();
        } catch (RuntimeException notAnswering) {
            status = -1;
        }
        assertNotEquals(200, status, "the application did not start, so no command could write alone");
    }
}
