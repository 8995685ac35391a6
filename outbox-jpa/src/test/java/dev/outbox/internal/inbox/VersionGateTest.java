package dev.outbox.internal.inbox;

import dev.outbox.internal.persistence.InboxMarks;
import dev.outbox.EventId;
import dev.outbox.Ordering;
import dev.outbox.internal.persistence.Dialect;
import dev.outbox.internal.persistence.FreshH2;
import dev.outbox.internal.persistence.H2Dialect;
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
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import static dev.outbox.Ordering.INDEPENDENT;
import static dev.outbox.Ordering.STRICT;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The inbox's version gate on a real H2 (DialectContract runs the gate's SQL on every dialect): marks, the
 * high-water row and durable holds, delivery by delivery, as the inbox runs them in the consumer's transaction.
 */
class VersionGateTest {

    private final Dialect dialect = new H2Dialect();
    private final OffsetDateTime now = OffsetDateTime.now(ZoneOffset.UTC);
    /** The holds, as a clock the test moves: how long each (consumer, event) has been held. */
    private final Map<String, Duration> held = new HashMap<>();
    private final List<String> holdsStarted = new ArrayList<>();
    private Connection connection;

    @BeforeEach
    void schema() throws SQLException {
        connection = FreshH2.open();
    }

    @AfterEach
    void close() throws SQLException {
        connection.close();
    }

    private VersionGate gate() {
        return new VersionGate(dialect, Duration.ofSeconds(2), (consumer, eventId) -> {
            holdsStarted.add(consumer + "/" + eventId);
            return held.getOrDefault(consumer + "/" + eventId, Duration.ZERO);
        });
    }

    /** One delivery as the inbox runs it: the mark, then the gate; a HOLD rolls both back. */
    private String deliver(String consumer, EventId id, long version, Ordering ordering) throws SQLException {
        connection.setAutoCommit(false);
        try {
            if (!dialect.markProcessed(connection, consumer, id.value(), "Order", "o-1", version, now, now.plusDays(30))) {
                connection.commit();
                return "DUPLICATE";
            }
            VersionCheck.Verdict verdict = gate().pass(connection, consumer, id, "Order", "o-1", version, ordering);
            if (verdict == VersionCheck.Verdict.HOLD) {
                connection.rollback();
            } else {
                connection.commit();
            }
            return verdict.name();
        } finally {
            connection.setAutoCommit(true);
        }
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

    private static EventId id() {
        return new EventId(UUID.randomUUID());
    }

    /** Issue 16 item 3: v1, v3, v2 of an independent type (a retried send, several workers): all three applied. */
    @Test
    void independentVersionsOutOfOrderAreAllAppliedAndTheMarkCatchesUp() throws SQLException {
        assertEquals("APPLY", deliver("c", id(), 1, STRICT));
        assertEquals("APPLY", deliver("c", id(), 3, INDEPENDENT), "applied ahead of its turn, not held");
        assertEquals(1, highWater("c"), "v2 has not passed yet");
        assertEquals("APPLY", deliver("c", id(), 2, INDEPENDENT), "v2 after v3: applied, never stale");
        assertEquals(3, highWater("c"), "the mark moved over v2 and the v3 applied before it");
        assertEquals(List.of(), holdsStarted, "no independent event was held");
    }

    @Test
    void aStrictGapIsHeldDurablyThenAppliedAndALateEarlierVersionIsReportedStale() throws SQLException {
        EventId v3 = id();
        assertEquals("APPLY", deliver("c", id(), 1, STRICT));
        assertEquals("HOLD", deliver("c", v3, 3, STRICT));
        assertEquals("HOLD", deliver("c", v3, 3, STRICT), "still inside the window");
        held.put("c/" + v3, Duration.ofSeconds(2));
        assertEquals("APPLY_AFTER_GAP", deliver("c", v3, 3, STRICT), "the window measured since the first hold");
        assertEquals(3, highWater("c"));
        assertEquals("STALE", deliver("c", id(), 2, STRICT), "v2 passed over after the reported gap: never backwards");
    }

    @Test
    void aStrictGapFilledInTimeIsAppliedInOrder() throws SQLException {
        EventId v2 = id();
        EventId v3 = id();
        assertEquals("APPLY", deliver("c", id(), 1, STRICT));
        assertEquals("HOLD", deliver("c", v3, 3, STRICT));
        assertEquals("APPLY", deliver("c", v2, 2, STRICT));
        assertEquals("APPLY", deliver("c", v3, 3, STRICT), "the redelivered v3 is next now");
        assertEquals(3, highWater("c"));
    }

    /** Issue 16 item 4: the high-water row outlives the marks, so an aggregate quiet for months is not a gap. */
    @Test
    void theHighWaterMarkOutlivesTheInboxMarks() throws SQLException {
        EventId v1 = id();
        assertEquals("APPLY", deliver("c", v1, 1, STRICT));
        assertEquals("APPLY", deliver("c", id(), 2, STRICT));
        try (PreparedStatement expire = connection.prepareStatement("DELETE FROM processed_event")) {
            expire.executeUpdate(); // retention ran
        }
        assertEquals("APPLY", deliver("c", id(), 3, STRICT), "v3 after the marks expired: the next version, no gap");
        assertEquals("STALE", deliver("c", v1, 1, STRICT), "a replay of v1 after its mark expired is not applied again");
        assertEquals("DUPLICATE", deliver("c", v1, 1, STRICT), "and is then a plain duplicate");
    }

    /** Issue 16 item 5: holds and high-water marks are per consumer: two consumers never share one. */
    @Test
    void twoConsumersKeepTheirOwnMarksAndHolds() throws SQLException {
        EventId v2 = id();
        assertEquals("APPLY", deliver("shipping", id(), 1, STRICT));
        assertEquals("HOLD", deliver("invoicing", v2, 2, STRICT), "invoicing has not seen v1");
        assertEquals("APPLY", deliver("shipping", v2, 2, STRICT), "shipping has");
        assertEquals(List.of("invoicing/" + v2), holdsStarted);
    }

    /** Marks kept from before the high-water rows existed (schema V4) tell where a consumer stands. */
    @Test
    void aConsumerWithOlderMarksStartsItsHighWaterMarkThere() throws SQLException {
        for (long v = 1; v <= 4; v++) {
            dialect.markProcessed(connection, "c", UUID.randomUUID(), "Order", "o-1", v, now, now.plusDays(30));
        }
        assertEquals("APPLY", deliver("c", id(), 5, STRICT));
        assertEquals(5, highWater("c"));
    }

    /** The SQL behind InboxHolds: a hold starts once, and its age is read on the database's clock. */
    @Test
    void aHoldStartsOnceAndAgesOnTheDatabasesClock() throws Exception {
        UUID event = UUID.randomUUID();
        dialect.startHold(connection, "c", event);
        Thread.sleep(50);
        dialect.startHold(connection, "c", event); // a redelivery: the hold keeps its start
        try (PreparedStatement select = connection.prepareStatement(InboxMarks.HOLD_SINCE)) {
            select.setString(1, "c");
            select.setObject(2, event);
            try (ResultSet rs = select.executeQuery()) {
                rs.next();
                Duration age = Duration.between(rs.getObject(1, OffsetDateTime.class), rs.getObject(2, OffsetDateTime.class));
                assertTrue(age.toMillis() >= 50, "held since the first start: " + age);
                assertFalse(rs.next(), "one row per consumer and event");
            }
        }
    }

    /**
     * Found by the protocol checker: an independent v3 applied while v2 is missing is above the high-water mark;
     * if retention deleted its mark, a duplicate of v3 would be applied again. Such a mark outlives retention.
     */
    @Test
    void inboxCleanupKeepsTheMarksAboveTheHighWaterMark() throws SQLException {
        EventId v3 = id();
        assertEquals("APPLY", deliver("c", id(), 1, STRICT));
        assertEquals("APPLY", deliver("c", v3, 3, INDEPENDENT));
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
        assertEquals("APPLY", deliver("c", id(), 2, STRICT));
        assertEquals(3, highWater("c"));
    }

    /**
     * Review finding: two first deliveries of one aggregate at once both create the high-water row. On H2 the second
     * insert meets the first's uncommitted row; it must wait for it and pass after it, not fail the delivery.
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
            second.setAutoCommit(false);
            EventId v1 = id();
            EventId v2 = id();
            dialect.markProcessed(first, "c", v1.value(), "Order", "o-1", 1L, now, now.plusDays(30));
            assertEquals(VersionCheck.Verdict.APPLY, gate().pass(first, "c", v1, "Order", "o-1", 1, STRICT));
            java.util.concurrent.CompletableFuture<VersionCheck.Verdict> other =
                    java.util.concurrent.CompletableFuture.supplyAsync(() -> {
                        try {
                            dialect.markProcessed(second, "c", v2.value(), "Order", "o-1", 2L, now, now.plusDays(30));
                            VersionCheck.Verdict verdict = gate().pass(second, "c", v2, "Order", "o-1", 2, STRICT);
                            second.commit();
                            return verdict;
                        } catch (SQLException e) {
                            throw new IllegalStateException(e);
                        }
                    });
            Thread.sleep(300); // the second delivery waits for the first's row
            first.commit();
            assertEquals(VersionCheck.Verdict.APPLY, other.get(10, java.util.concurrent.TimeUnit.SECONDS),
                    "v2 passes once v1's delivery committed");
        }
        assertEquals(2, highWater("c"));
    }
}
