package dev.outbox.internal.protocol;

import dev.outbox.internal.persistence.FreshH2;
import dev.outbox.internal.persistence.H2Dialect;
import dev.outbox.internal.persistence.OutboxDataSource;
import dev.outbox.internal.persistence.RecordedRow;
import dev.outbox.internal.persistence.Sql;
import dev.outbox.internal.persistence.StoredEvent;
import dev.outbox.internal.persistence.StoredEvents;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.UUID;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Replay's and repair's state changes (R6.6, R9.2-R9.4), the product's code on a real H2. */
class ResendTest {

    private Connection connection;
    private StoredEvents events;
    private Resend resend;
    private OffsetDateTime now;

    @BeforeEach
    void openDatabase() throws SQLException {
        connection = FreshH2.open();
        events = new StoredEvents(OutboxDataSource.over(connection, new H2Dialect()));
        resend = new Resend(events);
        now = Sql.clock(connection);
    }

    @AfterEach
    void close() throws SQLException {
        connection.close();
    }

    @Test
    void aReplayPutsOnlyDeliveredEventsBackToPendingWithTheirOwnIdsSpreadByTheRate() throws SQLException {
        UUID first = delivered("o1");
        UUID parked = RecordedRow.pending("Order", "o2", 1, "Paid").parked().insert(connection);
        UUID pending = RecordedRow.pending("Order", "o3", 1, "Paid").insert(connection);
        UUID second = delivered("o4");
        UUID gone = UUID.randomUUID();

        StoredEvents.MadeDue due = resend.replay(List.of(first, parked, pending, gone, second), 4);

        assertEquals(List.of(first, second), due.eventIds(), "only the delivered events are sent again");
        assertEquals("PENDING", state(first));
        assertEquals("PARKED", state(parked), "a parked event is resumed, never replayed");
        assertEquals(Duration.ofMillis(250), Duration.between(dueAt(first), dueAt(second)),
                "the k-th re-send is due k/rate seconds after the first (R9.4), counting only those changed");
        assertFalse(dueAt(first).isBefore(now), "due from the database's time now, not earlier");
        assertEquals(1, events.find(first).orElseThrow().aggregateVersion(), "the same row, the same event");
    }

    @Test
    void aResumeTakesOnlyAParkedEventAndKeepsItsEvidence() throws SQLException {
        UUID parked = RecordedRow.pending("Order", "o1", 1, "Paid").parked().attempts(3).insert(connection);
        UUID delivered = delivered("o2");

        assertTrue(resend.resume(parked));
        assertFalse(resend.resume(delivered), "a delivered event is not resumed: that is a replay");
        assertFalse(resend.resume(parked), "a second resume finds it pending and changes nothing");

        StoredEvent resumed = events.find(parked).orElseThrow();
        assertEquals("PENDING", resumed.state());
        assertEquals(3, resumed.attempts(), "the attempts stay as evidence (R6.6)");
        assertEquals("DELIVERED", state(delivered));
    }

    @Test
    void aFixChangesTheBodyOfAParkedEventOnlyAndLeavesItParked() throws SQLException {
        UUID parked = RecordedRow.pending("Order", "o1", 1, "Paid").withPayload("{\"too\":\"large\"}").parked()
                .insert(connection);
        UUID delivered = delivered("o2");

        assertTrue(resend.fix(parked, "{\"small\":true}", null, 2));
        assertFalse(resend.fix(delivered, "{\"rewritten\":true}", null, 2),
                "a delivered event's body is what its consumers applied: it is never rewritten");

        StoredEvent fixed = events.find(parked).orElseThrow();
        assertEquals("PARKED", fixed.state(), "a fix does not send: the operator resumes after reading it");
        assertEquals("{\"small\":true}", fixed.payload());
        assertEquals(2, fixed.schemaVersion());
        assertEquals("{}", events.find(delivered).orElseThrow().payload());
    }

    private UUID delivered(String aggregateId) throws SQLException {
        return RecordedRow.pending("Order", aggregateId, 1, "Paid").delivered(now.minusMinutes(5)).insert(connection);
    }

    private String state(UUID eventId) {
        return events.find(eventId).orElseThrow().state();
    }

    private OffsetDateTime dueAt(UUID eventId) throws SQLException {
        try (PreparedStatement select = connection.prepareStatement(
                "SELECT next_attempt_at FROM outbox_event WHERE event_id = ?")) {
            select.setObject(1, eventId);
            try (ResultSet rs = select.executeQuery()) {
                rs.next();
                return rs.getObject(1, OffsetDateTime.class);
            }
        }
    }
}
