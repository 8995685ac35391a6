package dev.outbox.inbox;

import dev.outbox.event.EventId;
import dev.outbox.schema.FreshH2;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.OffsetDateTime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** The ledger's states on a real (in-memory) H2, one connection per step as the server commits them. */
class SideEffectLedgerTest {

    private final OffsetDateTime now = OffsetDateTime.now();
    private final EventId event = EventId.next();
    private Connection connection;

    @BeforeEach
    void schema() throws SQLException {
        connection = FreshH2.open();
    }

    @AfterEach
    void close() throws SQLException {
        connection.close();
    }

    @Test
    void theKeyIsDerivedFromTheEventIdAndStaysTheSameForEveryAttempt() throws SQLException {
        SideEffectLedger.Attempt first = SideEffectLedger.begin(connection, "mailer", event, "welcome-mail", now);
        SideEffectLedger.Attempt second = SideEffectLedger.begin(connection, "mailer", event, "welcome-mail", now);
        assertEquals(event + ":welcome-mail", first.idempotencyKey());
        assertEquals(first.idempotencyKey(), second.idempotencyKey());
    }

    @Test
    void anAttemptThatNeverFinishedIsAnUnknownOutcomeForTheNextOne() throws SQLException {
        assertEquals(SideEffectLedger.Previous.NONE,
                SideEffectLedger.begin(connection, "mailer", event, "welcome-mail", now).previous());
        // The consumer crashed between the external call and its record of the result.
        assertEquals(SideEffectLedger.Previous.STARTED,
                SideEffectLedger.begin(connection, "mailer", event, "welcome-mail", now).previous());
    }

    @Test
    void aSucceededEffectIsReportedSoItIsNeverDoneTwice() throws SQLException {
        String key = SideEffectLedger.begin(connection, "mailer", event, "welcome-mail", now).idempotencyKey();
        SideEffectLedger.finish(connection, "mailer", key, "SUCCEEDED", "provider-42", now);
        assertEquals(SideEffectLedger.Previous.SUCCEEDED,
                SideEffectLedger.begin(connection, "mailer", event, "welcome-mail", now).previous());
        assertEquals(SideEffectLedger.Previous.SUCCEEDED,
                SideEffectLedger.begin(connection, "mailer", event, "welcome-mail", now).previous(),
                "a later attempt does not reopen a succeeded effect");
    }

    @Test
    void aFailedEffectMayBeTriedAgainAndConsumersDoNotShareEntries() throws SQLException {
        String key = SideEffectLedger.begin(connection, "mailer", event, "welcome-mail", now).idempotencyKey();
        SideEffectLedger.finish(connection, "mailer", key, "FAILED", null, now);
        assertEquals(SideEffectLedger.Previous.FAILED,
                SideEffectLedger.begin(connection, "mailer", event, "welcome-mail", now).previous());
        assertEquals(SideEffectLedger.Previous.NONE,
                SideEffectLedger.begin(connection, "sms", event, "welcome-mail", now).previous());
    }

    @Test
    void finishingAnEffectThatWasNeverBegunIsRefused() {
        assertThrows(IllegalStateException.class,
                () -> SideEffectLedger.finish(connection, "mailer", "nope", "SUCCEEDED", null, now));
    }
}
