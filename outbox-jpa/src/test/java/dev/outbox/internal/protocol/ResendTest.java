package dev.outbox.internal.protocol;

import dev.outbox.internal.persistence.ConfirmRows;
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
import java.util.Set;
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

    /**
     * Issue 42 item 2 (R6.6): a parked event a broker already took keeps its body: one transport of its route accepted
     * it (the confirm wrote accepted_by), or it was delivered once before a replay parked it.
     */
    @Test
    void aFixIsRefusedForAParkedEventABrokerAlreadyTook() throws SQLException {
        UUID takenByKafka = RecordedRow.pending("Order", "o1", 1, "Paid").withPayload("{\"v\":1}").parked()
                .insert(connection);
        ConfirmRows.accepted(connection, List.of(new ConfirmRows.Accepted(takenByKafka, "kafka")));
        UUID replayedThenParked = RecordedRow.pending("Order", "o2", 1, "Paid").withPayload("{\"v\":1}").parked()
                .insert(connection);
        try (PreparedStatement once = connection.prepareStatement("UPDATE outbox_event SET delivered_at = ?"
                + " WHERE event_id = ?")) { // delivered once, then replayed, then parked (a replay keeps delivered_at)
            once.setObject(1, now.minusMinutes(5));
            once.setObject(2, replayedThenParked);
            once.executeUpdate();
        }

        assertEquals(Set.of("kafka"), events.find(takenByKafka).orElseThrow().acceptedBy());
        assertTrue(events.find(takenByKafka).orElseThrow().reachedABroker());
        assertTrue(events.find(replayedThenParked).orElseThrow().reachedABroker());
        assertFalse(resend.fix(takenByKafka, "{\"v\":2}", null, 1), "Kafka's consumers may hold the old body");
        assertFalse(resend.fix(replayedThenParked, "{\"v\":2}", null, 1), "its consumers applied the old body");
        assertEquals("{\"v\":1}", events.find(takenByKafka).orElseThrow().payload());
        assertEquals("{\"v\":1}", events.find(replayedThenParked).orElseThrow().payload());
        assertTrue(resend.resume(takenByKafka), "it is resumed unchanged: the broker that took it absorbs the re-send");
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
