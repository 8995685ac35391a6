package dev.outbox.internal.inbox;

import dev.outbox.EventId;
import dev.outbox.SideEffectLedger;
import dev.outbox.internal.persistence.FreshH2;
import dev.outbox.internal.persistence.H2Dialect;
import dev.outbox.internal.persistence.OutboxDataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.OffsetDateTime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** The ledger's states on a real (in-memory) H2, one connection per step as the server commits them. */
class LocalSendLedgerTest {

    private final OffsetDateTime now = OffsetDateTime.now();
    private final EventId event = EventId.next();
    private Connection connection;
    private LocalSendLedger ledger;

    @BeforeEach
    void schema() throws SQLException {
        connection = FreshH2.open();
        ledger = new LocalSendLedger(OutboxDataSource.over(connection, new H2Dialect()));
    }

    @AfterEach
    void close() throws SQLException {
        connection.close();
    }

    @Test
    void theKeyIsDerivedFromTheEventIdAndStaysTheSameForEveryAttempt() throws SQLException {
        SideEffectLedger.Attempt first = ledger.begin("mailer", event, "welcome-mail", now);
        SideEffectLedger.Attempt second = ledger.begin("mailer", event, "welcome-mail", now);
        assertEquals(event + ":welcome-mail", first.idempotencyKey());
        assertEquals(first.idempotencyKey(), second.idempotencyKey());
    }

    @Test
    void anAttemptThatNeverFinishedIsAnUnknownOutcomeForTheNextOne() throws SQLException {
        assertEquals(SideEffectLedger.Previous.NONE,
                ledger.begin("mailer", event, "welcome-mail", now).previous());
        // The consumer crashed between the external call and its record of the result.
        assertEquals(SideEffectLedger.Previous.STARTED,
                ledger.begin("mailer", event, "welcome-mail", now).previous());
    }

    @Test
    void aSucceededEffectIsReportedSoItIsNeverDoneTwice() throws SQLException {
        String key = ledger.begin("mailer", event, "welcome-mail", now).idempotencyKey();
        ledger.finish("mailer", key, "SUCCEEDED", "provider-42", now);
        assertEquals(SideEffectLedger.Previous.SUCCEEDED,
                ledger.begin("mailer", event, "welcome-mail", now).previous());
        assertEquals(SideEffectLedger.Previous.SUCCEEDED,
                ledger.begin("mailer", event, "welcome-mail", now).previous(),
                "a later attempt does not reopen a succeeded effect");
    }

    @Test
    void aFailedEffectMayBeTriedAgainAndConsumersDoNotShareEntries() throws SQLException {
        String key = ledger.begin("mailer", event, "welcome-mail", now).idempotencyKey();
        ledger.finish("mailer", key, "FAILED", null, now);
        assertEquals(SideEffectLedger.Previous.FAILED,
                ledger.begin("mailer", event, "welcome-mail", now).previous());
        assertEquals(SideEffectLedger.Previous.NONE,
                ledger.begin("sms", event, "welcome-mail", now).previous());
    }

    @Test
    void finishingAnEffectThatWasNeverBegunIsRefused() {
        assertThrows(IllegalStateException.class,
                () -> ledger.finish("mailer", "nope", "SUCCEEDED", null, now));
    }

    /** Issue 16 item 10: settled entries are cleaned up after the retention; an unknown outcome never is. */
    @Test
    void cleanupDeletesSettledEntriesPastRetentionAndKeepsUnknownOutcomes() throws SQLException {
        String succeeded = ledger.begin("mailer", event, "welcome-mail", now.minusDays(40))
                .idempotencyKey();
        ledger.finish("mailer", succeeded, "SUCCEEDED", "provider-1", now.minusDays(40));
        ledger.begin("mailer", event, "receipt-mail", now.minusDays(40)); // STARTED, never finished
        ledger.begin("mailer", event, "fresh-mail", now);
        try (java.sql.PreparedStatement cleanup = connection.prepareStatement(
                dev.outbox.internal.persistence.SideEffectRows.DELETE_SETTLED_SIDE_EFFECTS_BATCH)) {
            cleanup.setObject(1, now.minusDays(30));
            cleanup.setObject(2, now.minusDays(30));
            cleanup.setInt(3, 100);
            assertEquals(1, cleanup.executeUpdate(), "only the old succeeded entry");
        }
        assertEquals(SideEffectLedger.Previous.STARTED,
                ledger.begin("mailer", event, "receipt-mail", now).previous(),
                "an unknown outcome is evidence until someone reconciles it");
    }
}
