package dev.outbox.internal.protocol;

import dev.outbox.internal.persistence.ClaimRequest;
import dev.outbox.internal.persistence.ConfirmRows;
import dev.outbox.internal.persistence.FreshH2;
import dev.outbox.internal.persistence.H2Dialect;
import dev.outbox.internal.persistence.OutboxDataSource;
import dev.outbox.internal.persistence.RecordedRow;
import dev.outbox.internal.persistence.Sql;
import dev.outbox.internal.persistence.StoredEvent;
import dev.outbox.internal.persistence.StoredEvents;
import dev.outbox.internal.transport.StrictRuns;
import dev.outbox.spi.OutboundEvent;
import dev.outbox.spi.SendDeadline;
import dev.outbox.spi.SendResult;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.random.RandomGenerator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The product's confirm (R4.2, R4.4, R4.5) on a real H2: what each send result does to its row. */
class ConfirmTest {

    private static final Backoff BACKOFF = new Backoff(Duration.ofMinutes(10), Duration.ofMinutes(10));
    /** The backoff's jitter at its largest: a retry is due exactly ten minutes on. */
    private static final RandomGenerator NO_SPREAD = new RandomGenerator() {
        @Override
        public long nextLong() {
            throw new UnsupportedOperationException();
        }

        @Override
        public long nextLong(long bound) {
            return bound - 1;
        }
    };

    private final H2Dialect dialect = new H2Dialect();
    private final Confirm confirm = new Confirm(dialect, () -> NO_SPREAD);
    private Connection connection;
    private OffsetDateTime now;

    @BeforeEach
    void openDatabase() throws SQLException {
        connection = FreshH2.open();
        now = Sql.clock(connection);
    }

    @AfterEach
    void close() throws SQLException {
        connection.close();
    }

    @Test
    void theOutcomeMappingDecidesEachResultsFate() {
        assertEquals(Confirm.Verdict.DELIVERED, Confirm.Verdict.of(new SendResult.Delivered("m1", null, null)));
        assertEquals(Confirm.Verdict.PARK, Confirm.Verdict.of(new SendResult.PermanentFailure("MessageTooLarge")));
        assertEquals(Confirm.Verdict.RETRY, Confirm.Verdict.of(new SendResult.TransientFailure("BrokerDown")));
        assertEquals(Confirm.Verdict.RETRY, Confirm.Verdict.of(new SendResult.UnknownOutcome("Timeout")),
                "an unknown outcome is sent again (the inboxes absorb the duplicate), never taken as delivered");
        assertEquals(Confirm.Verdict.NOT_SENT, Confirm.Verdict.of(
                new SendResult.TransientFailure(StrictRuns.EARLIER_VERSION_NOT_DELIVERED)));
        assertEquals(Confirm.Verdict.NOT_SENT, Confirm.Verdict.of(new SendResult.TransientFailure(SendDeadline.LEASE_DEADLINE)));
    }

    @Test
    void aBatchsOutcomesAreWrittenEachToItsOwnRow() throws SQLException {
        List<OutboundEvent> claimed = claimFour("p1");
        Confirm.Confirmed confirmed = confirm.record(connection, "p1", List.of(
                new Outcome(claimed.get(0), new SendResult.Delivered("m1", null, null)),
                new Outcome(claimed.get(1), new SendResult.PermanentFailure("MessageTooLarge")),
                new Outcome(claimed.get(2), new SendResult.TransientFailure("BrokerDown")),
                new Outcome(claimed.get(3), new SendResult.TransientFailure(StrictRuns.EARLIER_VERSION_NOT_DELIVERED))),
                BACKOFF, type -> true);

        assertEquals(new Confirm.Confirmed(1, 2, 1, Set.of()), confirmed);
        assertEquals("DELIVERED m1 attempts 1", row(claimed.get(0)));
        assertEquals("PARKED MessageTooLarge attempts 1", row(claimed.get(1)));
        assertEquals("PENDING BrokerDown attempts 1", row(claimed.get(2)), "a retry counts its attempt");
        java.time.Instant retryFrom = dueAt(claimed.get(2)).minus(Duration.ofMinutes(10));
        assertTrue(!retryFrom.isBefore(now.toInstant()) && !retryFrom.isAfter(Sql.clock(connection).toInstant()),
                "a retry is due its backoff after the confirm, by the database's clock; due at " + dueAt(claimed.get(2)));
        assertEquals("PENDING null attempts 0", row(claimed.get(3)),
                "an event never handed to a broker gets its attempt back");
        assertTrue(!dueAt(claimed.get(3)).isAfter(Sql.clock(connection).toInstant()), "and is due again at once");
    }

    /**
     * Issue 42 item 2 (R6.6): the transports that took an event its route did not deliver everywhere are recorded
     * with the park or the retry, once each across attempts; a delivery records nothing (nothing repairs it).
     */
    @Test
    void theTransportsThatTookAnEventTheRouteDidNotDeliverAreRecordedOnceEach() throws SQLException {
        List<OutboundEvent> claimed = claimFour("p1");
        confirm.record(connection, "p1", List.of(
                new Outcome(claimed.get(0), new SendResult.Delivered("j k", null, null), Set.of("jms", "kafka")),
                new Outcome(claimed.get(1), new SendResult.PermanentFailure("MessageTooLarge"), Set.of("kafka")),
                new Outcome(claimed.get(2), new SendResult.TransientFailure("BrokerDown"), Set.of("jms")),
                new Outcome(claimed.get(3), new SendResult.TransientFailure("BrokerDown"))),
                BACKOFF, type -> true);
        // the retried one's next attempt: both took it this time, and JMS again
        ConfirmRows.accepted(connection, List.of(new ConfirmRows.Accepted(claimed.get(2).id().value(), "kafka"),
                new ConfirmRows.Accepted(claimed.get(2).id().value(), "jms")));

        StoredEvents events = new StoredEvents(OutboxDataSource.over(connection, dialect));
        assertEquals(Set.of(), events.find(claimed.get(0).id().value()).orElseThrow().acceptedBy(),
                "a delivered event records nothing");
        assertEquals(Set.of("kafka"), events.find(claimed.get(1).id().value()).orElseThrow().acceptedBy());
        assertEquals(Set.of("jms", "kafka"), events.find(claimed.get(2).id().value()).orElseThrow().acceptedBy());
        assertEquals(Set.of(), events.find(claimed.get(3).id().value()).orElseThrow().acceptedBy());
        try (PreparedStatement select = connection.prepareStatement("SELECT accepted_by FROM outbox_event"
                + " WHERE event_id = ?")) {
            select.setObject(1, claimed.get(2).id().value());
            try (ResultSet rs = select.executeQuery()) {
                rs.next();
                assertEquals(",jms,kafka,", rs.getString(1), "each transport once, in the order they first took it");
            }
        }
    }

    /**
     * Issue 42 item 2 (R6.6): a delivery whose lease ran out is not written (the claim that took over decides), but the
     * brokers did take the event: they are recorded, so its body is never repaired should the takeover park it.
     */
    @Test
    void theBrokersOfADeliveryWhoseLeaseRanOutAreRecordedThoughTheDeliveryIsNot() throws SQLException {
        List<OutboundEvent> lost = claimFour("p1");
        executeUpdate("UPDATE outbox_event SET next_attempt_at = ?", now.minusSeconds(1)); // p1's leases run out
        dialect.claim(connection, new ClaimRequest("p2", 10, Duration.ofMinutes(1), true, Set.of()));

        confirm.record(connection, "p1", List.of(new Outcome(lost.get(0), new SendResult.Delivered("j k", null, null),
                Set.of("jms", "kafka"))), BACKOFF, type -> true);

        StoredEvents events = new StoredEvents(OutboxDataSource.over(connection, dialect));
        StoredEvent row = events.find(lost.get(0).id().value()).orElseThrow();
        assertEquals("PENDING", row.state(), "p2's claim stands");
        assertEquals(Set.of("jms", "kafka"), row.acceptedBy(), "the brokers that took p1's send are on record");
    }

    @Test
    void aConfirmWhoseLeaseRanOutChangesNothingOfTheClaimThatTookOver() throws SQLException {
        List<OutboundEvent> lost = claimFour("p1");
        executeUpdate("UPDATE outbox_event SET next_attempt_at = ?", now.minusSeconds(1)); // p1's leases run out
        List<OutboundEvent> current = dialect.claim(connection, new ClaimRequest("p2", 10, Duration.ofMinutes(1), true, Set.of()));
        assertEquals(4, current.size(), "p2 took the rows over");

        Confirm.Confirmed confirmed = confirm.record(connection, "p1", List.of(
                new Outcome(lost.get(0), new SendResult.Delivered("m1", null, null)),
                new Outcome(lost.get(1), new SendResult.PermanentFailure("MessageTooLarge")),
                new Outcome(lost.get(2), new SendResult.TransientFailure("BrokerDown")),
                new Outcome(lost.get(3), new SendResult.TransientFailure(StrictRuns.EARLIER_VERSION_NOT_DELIVERED))),
                BACKOFF, type -> true);

        assertEquals(new Confirm.Confirmed(0, 0, 0, lost.stream().map(e -> e.id().value()).collect(
                java.util.stream.Collectors.toSet())), confirmed);
        for (OutboundEvent event : current) {
            assertEquals("PENDING null attempts 2", row(event), "p2's claim stands for " + event.describe());
        }
    }

    private List<OutboundEvent> claimFour(String claimer) throws SQLException {
        for (int version = 1; version <= 4; version++) {
            RecordedRow.pending("Order", "o" + version, 1, "T").recordedAt(now.minusSeconds(10))
                    .dueAt(now.minusSeconds(10 - version)).insert(connection);
        }
        List<OutboundEvent> claimed = dialect.claim(connection, new ClaimRequest(claimer, 10, Duration.ofMinutes(1), true, Set.of()));
        assertEquals(4, claimed.size());
        return claimed.stream().sorted(Comparator.comparing(e -> e.event().aggregateId())).toList();
    }

    private String row(OutboundEvent event) throws SQLException {
        try (PreparedStatement select = connection.prepareStatement("SELECT state, COALESCE(broker_message_id,"
                + " last_error_class), attempts FROM outbox_event WHERE event_id = ?")) {
            select.setObject(1, event.id().value());
            try (ResultSet rs = select.executeQuery()) {
                rs.next();
                return rs.getString(1) + " " + rs.getString(2) + " attempts " + rs.getInt(3);
            }
        }
    }

    private java.time.Instant dueAt(OutboundEvent event) throws SQLException {
        try (PreparedStatement select = connection.prepareStatement(
                "SELECT next_attempt_at FROM outbox_event WHERE event_id = ?")) {
            select.setObject(1, event.id().value());
            try (ResultSet rs = select.executeQuery()) {
                rs.next();
                return rs.getObject(1, OffsetDateTime.class).toInstant();
            }
        }
    }

    private void executeUpdate(String sql, Object value) throws SQLException {
        try (PreparedStatement update = connection.prepareStatement(sql)) {
            update.setObject(1, value);
            update.executeUpdate();
        }
    }
}
