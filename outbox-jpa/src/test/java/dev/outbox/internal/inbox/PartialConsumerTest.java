package dev.outbox.internal.inbox;

import dev.outbox.EventId;
import dev.outbox.InboxedEvent;
import dev.outbox.Ordering;
import dev.outbox.internal.event.PreviousVersions;
import dev.outbox.internal.persistence.Dialect;
import dev.outbox.internal.persistence.FreshH2;
import dev.outbox.internal.persistence.H2Dialect;
import dev.outbox.internal.persistence.InboxStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * A consumer that receives only some of an aggregate's event types (R5.7, {@code outbox.inbox.receives}), on a real
 * H2: it waits for the latest earlier version of its own types, read from the event's previous versions, never for
 * versions it will not receive. The order's history in every test: v1 OrderPlaced, v2 OrderPaid, v3 OrderNoted,
 * v4 OrderRefunded, v5 OrderPaid; "payments" receives OrderPaid and OrderRefunded only.
 */
class PartialConsumerTest {

    private static final String[] TYPES = {null, "OrderPlaced", "OrderPaid", "OrderNoted", "OrderRefunded", "OrderPaid"};
    private static final Map<String, Set<String>> RECEIVES = Map.of("payments", Set.of("OrderPaid", "OrderRefunded"));

    private final Dialect dialect = new H2Dialect();
    private final List<String> applied = new ArrayList<>();
    private final EventId[] ids = {null, EventId.next(), EventId.next(), EventId.next(), EventId.next(), EventId.next()};
    private Connection connection;

    @BeforeEach
    void schema() throws SQLException {
        connection = FreshH2.open();
    }

    @AfterEach
    void close() throws SQLException {
        connection.close();
    }

    /** Version {@code version} of the order's history with the previous versions the recorder gives it. */
    private Received received(long version, boolean withHeader) {
        PreviousVersions previous = PreviousVersions.NONE;
        for (int v = 1; v < version; v++) {
            previous = previous.then(TYPES[v], v);
        }
        return new Received(new InboxedEvent(ids[(int) version], TYPES[(int) version], "Order", "o-1", version, 1,
                Ordering.STRICT, "{}"), "q@" + version, Map.of(), withHeader ? previous : null);
    }

    private String deliver(String consumer, long version) throws Exception {
        return deliver(consumer, received(version, true));
    }

    private String deliver(String consumer, Received received) throws Exception {
        connection.setAutoCommit(false);
        try {
            String receipt = resequencer().receive(consumer, received,
                    turn -> applied.add(consumer + "@" + turn.event().aggregateVersion()), Resequencer.RELEASE_ALL)
                    .receipt().name();
            connection.commit();
            return receipt;
        } finally {
            connection.setAutoCommit(true);
        }
    }

    private java.util.function.Supplier<Resequencer> resequencer = () -> new Resequencer(
            new InboxStore(connection, dialect), Duration.ofDays(30), Set.of(), RECEIVES);

    private Resequencer resequencer() {
        return resequencer.get();
    }

    private long count(String sql) throws SQLException {
        try (PreparedStatement select = connection.prepareStatement(sql); ResultSet rs = select.executeQuery()) {
            rs.next();
            return rs.getLong(1);
        }
    }

    @Test
    void aConsumerReceivingSomeTypesAppliesEachOfThemWithoutWaitingForTheTypesItNeverReceives() throws Exception {
        assertEquals("FIRST", deliver("payments", 2), "OrderPaid v2 follows nothing payments receives");
        assertEquals("FIRST", deliver("payments", 4), "OrderRefunded v4 follows OrderPaid v2, applied");
        assertEquals("FIRST", deliver("payments", 5), "OrderPaid v5 follows OrderRefunded v4, applied");

        assertEquals(List.of("payments@2", "payments@4", "payments@5"), applied);
        assertEquals(0, count("SELECT COUNT(*) FROM inbox_waiting"), "nothing waits for v1 or v3, never received");
    }

    @Test
    void anEarlyEventWaitsForTheLatestEarlierVersionOfTheConsumersOwnTypesAndGoesOnWhenItComes() throws Exception {
        assertEquals("WAITING", deliver("payments", 4), "OrderRefunded v4 came before OrderPaid v2");
        assertEquals("FIRST", deliver("payments", 2));

        assertEquals(List.of("payments@2", "payments@4"), applied, "v4 applied after v2, in the same transaction");
        assertEquals(0, count("SELECT COUNT(*) FROM inbox_waiting"));
        assertEquals("FIRST", deliver("payments", 5), "and v5 goes on from v4");
    }

    @Test
    void aTypeTheConsumerDoesNotReceiveIsPassedOverUnmarkedAndNeverApplied() throws Exception {
        assertEquals("NOT_RECEIVED", deliver("payments", 1), "OrderPlaced reaches payments by mistake");
        assertEquals("FIRST", deliver("payments", 2));
        assertEquals("NOT_RECEIVED", deliver("payments", 3), "OrderNoted after the mark is passed over too");

        assertEquals(List.of("payments@2"), applied);
        assertEquals(1, count("SELECT COUNT(*) FROM processed_event"), "only the received type is marked");
    }

    @Test
    void aMessageWithoutPreviousVersionsWaitsForTheVersionJustBeforeItTheSafeReading() throws Exception {
        deliver("payments", 2);
        assertEquals("WAITING", deliver("payments", received(4, false)),
                "without the header v4 cannot tell that v3 is of a type payments never receives");
        assertEquals(List.of("payments@2"), applied);
    }

    @Test
    void aConsumerNotNamedInTheSettingWaitsForEveryVersionBeforeAnEvent() throws Exception {
        assertEquals("WAITING", deliver("invoicing", 2), "invoicing receives every type: v2 waits for v1");
        assertEquals("FIRST", deliver("invoicing", 1));
        assertEquals(List.of("invoicing@1", "invoicing@2"), applied);
    }

    @Test
    void afterAnOperatorsSkipTheReleaseSweepFindsAPartialConsumersWaitingEventReady() throws Exception {
        deliver("payments", 4); // waits for OrderPaid v2
        connection.setAutoCommit(false);
        resequencer().skip("payments", "Order", "o-1", 2, "alice", "v2 was refunded by hand");
        List<String[]> ready = resequencer().ready("payments", 10);
        connection.commit();
        connection.setAutoCommit(true);

        assertEquals(1, ready.size(), "v4 waits for v2 only, which the skip passed: ready for the sweep");
        connection.setAutoCommit(false);
        resequencer().releaseReady("payments", "Order", "o-1",
                turn -> applied.add("payments@" + turn.event().aggregateVersion()), Resequencer.RELEASE_ALL);
        connection.commit();
        connection.setAutoCommit(true);
        assertEquals(List.of("payments@4"), applied);
    }

    @Test
    void aPartialConsumersIndependentEventAppliedAheadOfItsTurnIsPassedByTheMarkOnceItsPredecessorIs()
            throws Exception {
        Received refundAhead = new Received(new InboxedEvent(ids[4], "OrderRefunded", "Order", "o-1", 4L, 1,
                Ordering.INDEPENDENT, "{}"), "q@4", Map.of(), received(4, true).previous());
        assertEquals("FIRST", deliver("payments", refundAhead), "an independent type is applied ahead of its turn");
        assertEquals("FIRST", deliver("payments", 2));
        assertEquals("FIRST", deliver("payments", 5),
                "v5 follows v4, which the mark passes once v2 is in: v5 never waits for an applied event");
        assertEquals(List.of("payments@4", "payments@2", "payments@5"), applied);
    }

    @Test
    void anEventNeverGoesAheadOfOneOfTheConsumersOwnThatWaitsBelowItWhateverItsHeaderSays() throws Exception {
        assertEquals("WAITING", deliver("payments", 4), "OrderRefunded v4 waits for OrderPaid v2");
        // v5's earlier rows were cleaned up at the producer before it was recorded: its header knows nothing
        Received paidWithoutHistory = new Received(new InboxedEvent(ids[5], "OrderPaid", "Order", "o-1", 5L, 1,
                Ordering.STRICT, "{}"), "q@5", Map.of(), PreviousVersions.NONE);
        assertEquals("WAITING", deliver("payments", paidWithoutHistory), "v5 waits behind the waiting v4");
        assertEquals(List.of(), applied);

        assertEquals("FIRST", deliver("payments", 2));
        assertEquals(List.of("payments@2", "payments@4", "payments@5"), applied, "all three, in version order");
        assertEquals(0, count("SELECT COUNT(*) FROM inbox_waiting"), "nothing stranded below the mark");
    }

    @Test
    void aHeaderNamingAVersionAtOrAfterTheEventsOwnIsReadTheSafeWay() throws Exception {
        Received damaged = new Received(new InboxedEvent(ids[4], "OrderRefunded", "Order", "o-1", 4L, 1,
                Ordering.STRICT, "{}"), "q@4", Map.of(), PreviousVersions.parse("OrderPaid=9"));
        assertEquals("WAITING", deliver("payments", damaged), "waits for v3, the version just before it");
        assertEquals(1, count("SELECT COUNT(*) FROM inbox_waiting WHERE previous_version IS NULL"),
                "stored as waiting for the version just before it, not for version 9");
    }

    @Test
    void anIndependentEventAppliedOnAnEmptyHeaderNeverLetsTheMarkPassAStrictOneThatWaits() throws Exception {
        Map<String, Set<String>> withNotes = Map.of("payments", Set.of("OrderPaid", "OrderNoted"));
        resequencer = () -> new Resequencer(new InboxStore(connection, dialect), Duration.ofDays(30), Set.of(),
                withNotes);
        assertEquals("WAITING", deliver("payments", strict(3, "OrderPaid", "OrderPaid=2,OrderPlaced=1")));
        // an independent note whose earlier rows were cleaned up at the producer: applied at once, its mark says 0
        assertEquals("FIRST", deliver("payments", new Received(new InboxedEvent(EventId.next(), "OrderNoted", "Order",
                "o-1", 5L, 1, Ordering.INDEPENDENT, "{}"), "q@5", Map.of(), PreviousVersions.NONE)));
        assertEquals("FIRST", deliver("payments", strict(2, "OrderPaid", "OrderPlaced=1")));

        assertEquals(List.of("payments@5", "payments@2", "payments@3"), applied, "v3 applied in its turn after v2");
        assertEquals(0, count("SELECT COUNT(*) FROM inbox_waiting"), "nothing stranded below the mark");
    }

    @Test
    void aLongRunOfWaitingEventsIsReleasedWholeAcrossPagesWhenTheMarkJumpsAnIndependentMark() throws Exception {
        Map<String, Set<String>> withNotes = Map.of("payments", Set.of("OrderPaid", "OrderNoted"));
        resequencer = () -> new Resequencer(new InboxStore(connection, dialect), Duration.ofDays(30), Set.of(),
                withNotes);
        for (long v = 3; v <= 62; v++) { // 60 payments wait for v2, more than a page of waiting events
            assertEquals("WAITING", deliver("payments", strict(v, "OrderPaid", "OrderPaid=" + (v - 1)
                    + ",OrderPlaced=1")));
        }
        deliver("payments", new Received(new InboxedEvent(EventId.next(), "OrderNoted", "Order", "o-1", 70L, 1,
                Ordering.INDEPENDENT, "{}"), "q@70", Map.of(), PreviousVersions.NONE));
        assertEquals("FIRST", deliver("payments", strict(2, "OrderPaid", "OrderPlaced=1")));

        assertEquals(62, applied.size(), "v70, v2 and all 60 that waited: " + applied);
        assertEquals(0, count("SELECT COUNT(*) FROM inbox_waiting"), "nothing stranded below the mark");
    }

    @Test
    void theReleaseSweepListsAnAggregateOnlyWhenItsFirstWaitingEventCanGoOn() throws Exception {
        Map<String, Set<String>> paymentsAndRefunds = Map.of("payments", Set.of("OrderPaid", "OrderRefunded"));
        resequencer = () -> new Resequencer(new InboxStore(connection, dialect), Duration.ofDays(30), Set.of(),
                paymentsAndRefunds);
        assertEquals("WAITING", deliver("payments", strict(3, "OrderPaid", "OrderPaid=2,OrderPlaced=1")));
        assertEquals("WAITING", deliver("payments", strict(5, "OrderRefunded", "OrderPaid=4")));
        assertEquals("WAITING", deliver("payments", new Received(new InboxedEvent(EventId.next(), "OrderRefunded",
                "Order", "o-1", 6L, 1, Ordering.STRICT, "{}"), "q@6", Map.of(), PreviousVersions.NONE)),
                "v6 knows no history, yet waits behind v3");
        assertEquals("FIRST", deliver("payments", strict(2, "OrderPaid", "OrderPlaced=1")));
        assertEquals(List.of("payments@2", "payments@3"), applied, "v5 waits for v4 still");

        connection.setAutoCommit(false);
        List<String[]> ready = resequencer().ready("payments", 10);
        connection.commit();
        connection.setAutoCommit(true);
        assertEquals(0, ready.size(), "v6 could go on alone but waits behind v5: a sweep would release nothing");
    }

    private Received strict(long version, String type, String previous) {
        return new Received(new InboxedEvent(EventId.next(), type, "Order", "o-1", version, 1, Ordering.STRICT, "{}"),
                "q@" + version, Map.of(), PreviousVersions.parse(previous));
    }

    @Test
    void aLateVersionOfAReceivedTypeBelowTheMarkIsParkedAsAConflictNeverApplied() throws Exception {
        // v2's previous versions cleaned up: v4 arrives first carrying only what the outbox still knew
        Received refundWithoutHistory = new Received(new InboxedEvent(ids[4], "OrderRefunded", "Order", "o-1", 4L, 1,
                Ordering.STRICT, "{}"), "q@4", Map.of(), PreviousVersions.NONE);
        assertEquals("FIRST", deliver("payments", refundWithoutHistory));
        assertEquals("CONFLICT", deliver("payments", 2), "OrderPaid v2 came after v4 was applied: an operator decides");
        assertEquals(List.of("payments@4"), applied);
    }
}
