package dev.outbox.internal.inbox;

import dev.outbox.EventId;
import dev.outbox.InboxedEvent;
import dev.outbox.Ordering;
import dev.outbox.internal.persistence.Dialect;
import dev.outbox.internal.persistence.FreshH2;
import dev.outbox.internal.persistence.H2Dialect;
import dev.outbox.internal.persistence.InboxMarks;
import dev.outbox.internal.persistence.InboxStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static dev.outbox.Ordering.INDEPENDENT;
import static dev.outbox.Ordering.STRICT;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The inbox's resequencer on a real H2, delivery by delivery, as a consumer's transactions run it (R5.6, R5.7): what
 * the high-water mark keeps past retention, per consumer, from older marks, and two first deliveries at once.
 * {@code DialectContract} runs its main cases on all three databases.
 */
class ResequencerTest {

    private final Dialect dialect = new H2Dialect();
    private final OffsetDateTime now = OffsetDateTime.now(ZoneOffset.UTC);
    private final List<String> applied = new ArrayList<>();
    /** The consumer's advisory types (outbox.inbox.advisory-order): none unless a test says. */
    private Set<String> advisory = Set.of();
    private Connection connection;

    @BeforeEach
    void schema() throws SQLException {
        connection = FreshH2.open();
    }

    @AfterEach
    void close() throws SQLException {
        connection.close();
    }

    private String deliver(Connection on, String consumer, EventId id, long version, Ordering ordering)
            throws Exception {
        return deliver(on, consumer, "OrderAmended", id, version, ordering);
    }

    private String deliver(Connection on, String consumer, String eventType, EventId id, long version,
                           Ordering ordering) throws Exception {
        on.setAutoCommit(false);
        try {
            Received received = new Received(new InboxedEvent(id, eventType, "Order", "o-1", version, 1, ordering,
                    "{}"), "q@" + version);
            String receipt = new Resequencer(new InboxStore(on, dialect), Duration.ofDays(30), advisory)
                    .receive(consumer, received, turn -> applied.add(consumer + "@" + turn.event().aggregateVersion()),
                            Resequencer.RELEASE_ALL).receipt().name();
            on.commit();
            return receipt;
        } finally {
            on.setAutoCommit(true);
        }
    }

    private String deliver(String consumer, EventId id, long version, Ordering ordering) throws Exception {
        return deliver(connection, consumer, id, version, ordering);
    }

    private long highWater(String consumer) throws SQLException {
        try (PreparedStatement select = connection.prepareStatement("SELECT high_water FROM inbox_high_water"
                + " WHERE consumer = ? AND aggregate_type = 'Order' AND aggregate_id = 'o-1'")) {
            select.setString(1, consumer);
            try (ResultSet rs = select.executeQuery()) {
                return rs.next() ? rs.getLong(1) : -1;
            }
        }
    }

    @Test
    void aGapBeforeAnAdvisoryTypeIsSkippedByTheConsumerOnceItWaitedLongEnoughAndTheLateVersionIsNotApplied()
            throws Exception {
        deliver("invoicing", EventId.next(), 1, Ordering.STRICT);
        assertEquals("WAITING", deliver("invoicing", EventId.next(), 3, Ordering.STRICT));

        advisory = Set.of("OrderPlaced");
        assertEquals(List.of(), skipAdvisory(Duration.ZERO),
                "a gap before a type whose order is not advisory waits for the operator");
        advisory = Set.of("OrderAmended");
        assertEquals(List.of(), skipAdvisory(Duration.ofHours(1)), "an advisory gap younger than the wait waits");
        List<Resequencer.Skip> skipped = skipAdvisory(Duration.ZERO);

        assertEquals(1, skipped.size(), "the advisory gap that waited long enough is skipped");
        assertEquals(2, skipped.get(0).from(), "from the version after the mark");
        assertEquals(2, skipped.get(0).through(), "through the version before the waiting one");
        assertEquals(2, highWater("invoicing"), "the consumer stops waiting for version 2");
        assertEquals("SKIPPED", deliver("invoicing", EventId.next(), 2, Ordering.STRICT),
                "the late version of an advisory type is recorded as skipped: the setting's documented cost");
        assertEquals(List.of("invoicing@1"), applied, "version 2 never applied (version 3 goes on with the sweep)");
    }

    @Test
    void aLateVersionOfATypeWhoseOrderIsNotAdvisoryPassedOverByAnAdvisorySkipIsParkedAsAConflict() throws Exception {
        advisory = Set.of("OrderAmended");
        deliver("invoicing", EventId.next(), 1, Ordering.STRICT);
        deliver("invoicing", EventId.next(), 3, Ordering.STRICT);
        assertEquals(1, skipAdvisory(Duration.ZERO).size(), "the gap before OrderAmended v3 is skipped");

        EventId paid = EventId.next();
        assertEquals("CONFLICT", deliver(connection, "invoicing", "OrderPaid", paid, 2, Ordering.STRICT),
                "nobody decided to lose a payment: it is parked for an operator, not recorded as skipped");
        assertEquals(List.of("invoicing@1"), applied, "and not applied out of order either");
    }

    @Test
    void aForkAtAWaitingVersionBeyondTheFirstPageOfWaitingEventsIsStillParked() throws Exception {
        deliver("invoicing", EventId.next(), 1, STRICT);
        for (long v = 3; v <= 55; v++) { // more waiting events than one page reads
            assertEquals("WAITING", deliver("invoicing", EventId.next(), v, STRICT));
        }
        assertEquals("WAITING", deliver("invoicing", EventId.next(), 60, STRICT));
        assertEquals("CONFLICT", deliver("invoicing", EventId.next(), 60, INDEPENDENT),
                "another event at version 60, where one waits: a fork (R7.7), never applied beside it");
        assertEquals(List.of("invoicing@1"), applied);
    }

    @Test
    void anAdvisoryGapIsMeasuredByTheFirstWaitingEventNotByALaterOneThatWaitedLonger() throws Exception {
        advisory = Set.of("OrderAmended");
        deliver("invoicing", EventId.next(), 1, Ordering.STRICT);
        deliver("invoicing", EventId.next(), 5, Ordering.STRICT);
        Thread.sleep(400);
        deliver("invoicing", EventId.next(), 3, Ordering.STRICT); // the first waiting now, and young

        assertEquals(List.of(), skipAdvisory(Duration.ofMillis(300)),
                "version 2 has been missing before version 3 only a moment: nothing is skipped for version 5's age");
        assertEquals(1, highWater("invoicing"), "version 2 is still waited for");
    }

    private List<Resequencer.Skip> skipAdvisory(Duration wait) throws SQLException {
        connection.setAutoCommit(false);
        try {
            List<Resequencer.Skip> skipped = new Resequencer(new InboxStore(connection, dialect), Duration.ofDays(30),
                    advisory).skipAdvisoryGaps("invoicing", wait, 20);
            connection.commit();
            return skipped;
        } finally {
            connection.setAutoCommit(true);
        }
    }

    /** Issue 16 item 4: the high-water row outlives the marks, so an aggregate quiet for months is not a gap. */
    @Test
    void theHighWaterMarkOutlivesTheInboxMarks() throws Exception {
        EventId v1 = EventId.next();
        assertEquals("FIRST", deliver("c", v1, 1, STRICT));
        assertEquals("FIRST", deliver("c", EventId.next(), 2, STRICT));
        try (PreparedStatement expire = connection.prepareStatement("DELETE FROM processed_event")) {
            expire.executeUpdate(); // retention ran
        }
        assertEquals("FIRST", deliver("c", EventId.next(), 3, STRICT), "v3 after the marks expired: no gap");
        assertEquals("CONFLICT", deliver("c", v1, 1, STRICT),
                "a replay of v1 after its mark expired is never applied again; which event it is cannot be told");
        assertEquals("DUPLICATE", deliver("c", v1, 1, STRICT), "and is then parked once, whatever comes again");
        assertEquals(List.of("c@1", "c@2", "c@3"), applied);
    }

    /** Issue 16 item 5: waiting events and high-water marks are per consumer: two consumers never share one. */
    @Test
    void twoConsumersKeepTheirOwnMarksAndWaitingEvents() throws Exception {
        EventId v2 = EventId.next();
        assertEquals("FIRST", deliver("shipping", EventId.next(), 1, STRICT));
        assertEquals("WAITING", deliver("invoicing", v2, 2, STRICT), "invoicing has not seen v1");
        assertEquals("FIRST", deliver("shipping", v2, 2, STRICT), "shipping has");
        assertEquals(List.of("shipping@1", "shipping@2"), applied);
    }

    /** Marks kept from before the high-water rows existed (schema V4) tell where a consumer stands. */
    @Test
    void aConsumerWithOlderMarksStartsItsHighWaterMarkThere() throws Exception {
        for (long v = 1; v <= 4; v++) {
            dialect.markProcessed(connection, "c", UUID.randomUUID(), "Order", "o-1", v, now, now.plusDays(30));
        }
        assertEquals("FIRST", deliver("c", EventId.next(), 5, STRICT));
        assertEquals(5, highWater("c"));
    }

    /**
     * Found by the protocol checker: an independent v3 applied while v2 is missing is above the high-water mark;
     * if retention deleted its mark, a duplicate of v3 would be applied again. Such a mark outlives retention.
     */
    @Test
    void inboxCleanupKeepsTheMarksAboveTheHighWaterMark() throws Exception {
        EventId v3 = EventId.next();
        assertEquals("FIRST", deliver("c", EventId.next(), 1, STRICT));
        assertEquals("FIRST", deliver("c", v3, 3, INDEPENDENT));
        try (PreparedStatement expire = connection.prepareStatement("UPDATE processed_event SET retain_until = ?")) {
            expire.setObject(1, now.minusDays(1));
            expire.executeUpdate();
        }
        try (PreparedStatement cleanup = connection.prepareStatement(InboxMarks.DELETE_PROCESSED_BATCH)) {
            cleanup.setObject(1, now);
            cleanup.setObject(2, now);
            cleanup.setInt(3, 100);
            assertEquals(1, cleanup.executeUpdate(), "v1's mark goes, it is at the high-water mark");
        }
        assertEquals("DUPLICATE", deliver("c", v3, 3, INDEPENDENT), "v3's mark stayed: its duplicate is absorbed");
        assertEquals("FIRST", deliver("c", EventId.next(), 2, STRICT));
        assertEquals(3, highWater("c"));
    }

    /**
     * Two first deliveries of one aggregate at once both create the high-water row. On H2 the second insert meets the
     * first's uncommitted row; it must wait for it and pass after it, not fail the delivery: v2 is then next.
     */
    @Test
    void twoFirstDeliveriesOfOneAggregateAtOncePassOneAfterTheOther() throws Exception {
        String url = connection.getMetaData().getURL();
        try (Connection first = java.sql.DriverManager.getConnection(url, "sa", "");
             Connection second = java.sql.DriverManager.getConnection(url, "sa", "")) {
            try (java.sql.Statement wait = second.createStatement()) {
                wait.execute("SET LOCK_TIMEOUT 10000");
            }
            first.setAutoCommit(false);
            EventId v1 = EventId.next();
            Received one = new Received(new InboxedEvent(v1, "OrderAmended", "Order", "o-1", 1L, 1, STRICT, "{}"), "q");
            assertEquals("FIRST", new Resequencer(new InboxStore(first, dialect), Duration.ofDays(30))
                    .receive("c", one, turn -> { }, Resequencer.RELEASE_ALL).receipt().name());
            CompletableFuture<String> other = CompletableFuture.supplyAsync(() -> {
                try {
                    return deliver(second, "c", EventId.next(), 2, STRICT);
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
            Thread.sleep(300); // the second delivery waits for the first's row
            first.commit();
            assertEquals("FIRST", other.get(10, TimeUnit.SECONDS), "v2 passes once v1's delivery committed");
        }
        assertEquals(2, highWater("c"));
    }
}
