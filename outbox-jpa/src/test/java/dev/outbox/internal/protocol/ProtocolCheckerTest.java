package dev.outbox.internal.protocol;

import dev.outbox.internal.persistence.H2Dialect;
import dev.outbox.internal.persistence.SqlScript;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The randomized protocol checker on H2 (the embedded default); itests runs it on PostgreSQL. 30 s of steps and
 * the drain after them (about a minute) by default: {@code -Dchecker.seconds=600} for longer, {@code -Dchecker.seed=S -Dchecker.steps=N} to replay a run,
 * {@code -Dchecker.mutation=CONFIRM_WITHOUT_CLAIMER} (or CLEANUP_ANY_STATE, INDEPENDENT_THROUGH_GATE, APPLY_AFTER_GAP,
 * DROP_SUCCESSOR, FORK_AS_DUPLICATE, PREDECESSOR_IGNORED, ONLY_THE_VERSION_BEFORE, HEADER_DROPPED) to see it bite.
 */
class ProtocolCheckerTest {

    @Test
    @Timeout(value = 20, unit = TimeUnit.MINUTES)
    void everyCommittedEventIsAppliedOncePerConsumerInOrderWhateverTheFaults() throws SQLException {
        String url = "jdbc:h2:mem:checker-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=10000";
        try (Connection schema = DriverManager.getConnection(url, "sa", "")) {
            for (String script : new H2Dialect().schemaScripts()) {
                SqlScript.load(script, getClass().getClassLoader()).run(schema);
            }
        }
        ProtocolChecker.Result result = ProtocolCheckerRun.run(() -> {
            try {
                return DriverManager.getConnection(url, "sa", "");
            } catch (SQLException e) {
                throw new IllegalStateException(e);
            }
        }, new H2Dialect());
        assertEquals(java.util.List.of(), result.violations(), "protocol violations; replay with " + result.replay());
        assertTrue(result.events() > 100, "the run recorded enough events to mean something: " + result.events());
    }
}
