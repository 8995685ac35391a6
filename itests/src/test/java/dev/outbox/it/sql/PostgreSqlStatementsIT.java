package dev.outbox.it.sql;

import dev.outbox.internal.persistence.InboxMarks;
import dev.outbox.internal.persistence.OutboxRows;
import dev.outbox.EventId;
import dev.outbox.Ordering;
import dev.outbox.internal.inbox.VersionCheck;
import dev.outbox.internal.inbox.VersionGate;
import dev.outbox.SideEffectLedger;
import dev.outbox.it.support.Settings;
import dev.outbox.internal.persistence.ClaimRequest;
import dev.outbox.internal.persistence.Delivery;
import dev.outbox.internal.persistence.Dialect;
import dev.outbox.internal.persistence.PostgreSqlDialect;
import dev.outbox.internal.persistence.RecordedRow;
import dev.outbox.internal.persistence.SqlScript;
import dev.outbox.spi.OutboundEvent;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The PostgreSQL dialect's statements on the real test PostgreSQL, in a schema of their own: the same checks
 * outbox-jpa's H2ClaimTest and SideEffectLedgerTest make on H2, plus two claimers racing with SKIP LOCKED.
 */
@EnabledIfSystemProperty(named = "it.db", matches = "postgresql")
class PostgreSqlStatementsIT {

    private final Dialect dialect = new PostgreSqlDialect();
    private final OffsetDateTime now = OffsetDateTime.now(ZoneOffset.UTC);
    private final String schema = "sqlcheck_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
    private Connection connection;

    private Connection connect() throws SQLException {
        Connection c = DriverManager.getConnection(Settings.required("it.jdbc.url"), Settings.required("it.jdbc.user"),
                System.getProperty("it.jdbc.password", ""));
        try (Statement statement = c.createStatement()) {
            statement.execute("SET search_path TO " + schema);
        }
        return c;
    }

    @BeforeEach
    void schema() throws SQLException {
        connection = connect();
        try (Statement statement = connection.createStatement()) {
            statement.execute("CREATE SCHEMA " + schema);
        }
        for (String script : dialect.schemaScripts()) {
            SqlScript.load(script, getClass().getClassLoader()).run(connection);
        }
        // The scripts are idempotent: a second run changes nothing.
        for (String script : dialect.schemaScripts()) {
            SqlScript.load(script, getClass().getClassLoader()).run(connection);
        }
    }

    @Test
    void aRowRecordedWithoutItsDueTimeIsDueAtTheDatabasesTime() throws SQLException {
        // The recording server's clock an hour ahead: the row must be due now all the same (issue 16 item 6).
        UUID id = RecordedRow.pending("Order", "o-clock", 1, "OrderPlaced").recordedAt(now.plusHours(1))
                .insert(connection);
        try (PreparedStatement due = connection.prepareStatement(
                "SELECT COUNT(*) FROM outbox_event WHERE event_id = ? AND next_attempt_at <= CURRENT_TIMESTAMP")) {
            due.setObject(1, id);
            try (var rs = due.executeQuery()) {
                rs.next();
                assertEquals(1, rs.getInt(1), "a new row takes the database's time as its due time");
            }
        }
    }

    @Test
    void aSecondReplayRequestOfThePersonWaitsUntilTheFirstHasCommitted() throws Exception {
        try (Connection first = connect(); Connection second = connect()) {
            first.setAutoCommit(false);
            second.setAutoCommit(false);
            dialect.lockRequester(first, "lead"); // creates the row and locks it, uncommitted
            CompletableFuture<Void> waiting = CompletableFuture.runAsync(() -> {
                try {
                    dialect.lockRequester(second, "lead");
                    second.commit();
                } catch (SQLException e) {
                    throw new IllegalStateException(e);
                }
            });
            Thread.sleep(300);
            assertFalse(waiting.isDone(), "the second request of one person must wait while the first is undecided");
            first.commit();
            waiting.get(10, TimeUnit.SECONDS);
        }
    }

    @AfterEach
    void drop() throws SQLException {
        try (Statement statement = connection.createStatement()) {
            statement.execute("DROP SCHEMA " + schema + " CASCADE");
        }
        connection.close();
    }

    private UUID pending(String aggregateId, long version, String type) throws SQLException {
        return RecordedRow.pending("Order", aggregateId, version, type)
                .recordedAt(now.minusSeconds(10)).dueAt(now.minusSeconds(10)).insert(connection);
    }

    /** One row's columns, as strings (null stays null), for assertions that read well. */
    private List<String> row(String sql, Object... values) throws SQLException {
        try (PreparedStatement query = connection.prepareStatement(sql)) {
            for (int i = 0; i < values.length; i++) {
                query.setObject(i + 1, values[i]);
            }
            try (java.sql.ResultSet rs = query.executeQuery()) {
                assertTrue(rs.next(), "a row for " + sql);
                List<String> columns = new java.util.ArrayList<>();
                for (int i = 1; i <= rs.getMetaData().getColumnCount(); i++) {
                    columns.add(rs.getString(i));
                }
                return columns;
            }
        }
    }

    private List<OutboundEvent> claim(Connection c, String claimer, Set<String> independent) throws SQLException {
        return dialect.claim(c, new ClaimRequest(claimer, 10, Duration.ofSeconds(30), true, independent));
    }

    /** The claimer's lease on a row has run out: the row is due again for a takeover (R4.3). */
    private void leaseRunsOut(UUID id) throws SQLException {
        update("UPDATE outbox_event SET next_attempt_at = ? WHERE event_id = ?", now.minusSeconds(1), id);
    }

    private int update(String sql, Object... values) throws SQLException {
        try (PreparedStatement statement = connection.prepareStatement(sql)) {
            for (int i = 0; i < values.length; i++) {
                statement.setObject(i + 1, values[i]);
            }
            return statement.executeUpdate();
        }
    }

    @Test
    void twoClaimersRacingWithSkipLockedGetDisjointRows() throws SQLException {
        for (int i = 0; i < 6; i++) {
            pending("agg-" + i, 1, "T");
        }
        try (Connection first = connect(); Connection second = connect()) {
            first.setAutoCommit(false);
            second.setAutoCommit(false);
            List<OutboundEvent> a = dialect.claim(first, new ClaimRequest("p1", 4, Duration.ofSeconds(30), true, Set.of()));
            // p1 has not committed: its rows are locked, and p2 skips them instead of waiting (R4.1).
            List<OutboundEvent> b = dialect.claim(second, new ClaimRequest("p2", 4, Duration.ofSeconds(30), true, Set.of()));
            first.commit();
            second.commit();
            assertEquals(4, a.size());
            assertEquals(2, b.size());
            assertTrue(a.stream().noneMatch(x -> b.stream().anyMatch(y -> y.id().equals(x.id()))), "disjoint claims");
        }
    }

    @Test
    void confirmParkAndRetryOnlyCountForTheCurrentClaim() throws SQLException {
        UUID id = pending("a", 1, "T");
        OutboundEvent stale = claim(connection, "p1", Set.of()).get(0);
        leaseRunsOut(id);
        OutboundEvent current = claim(connection, "p2", Set.of()).get(0);
        assertEquals(0, update(OutboxRows.CONFIRM, now, "m-1", 0, 7L, id, "p1", stale.leaseVersion()));
        assertEquals(0, update(OutboxRows.PARK, "X", id, "p1", stale.leaseVersion()));
        assertEquals(0, update(OutboxRows.RETRY_LATER, now, "X", id, "p1", stale.leaseVersion()));
        assertEquals(1, update(OutboxRows.CONFIRM, now, "m-2", 0, 7L, id, "p2", current.leaseVersion()));
    }

    @Test
    void theOneStatementConfirmWritesOnlyTheRowsWhoseClaimIsCurrent() throws SQLException {
        UUID taken = pending("a", 1, "T");
        UUID kept = pending("b", 1, "T");
        List<OutboundEvent> stale = claim(connection, "p1", Set.of());
        leaseRunsOut(taken);
        OutboundEvent takenOver = claim(connection, "p2", Set.of()).get(0);
        assertEquals(taken, takenOver.id().value(), "p2 took over the row whose lease ran out");
        Set<UUID> confirmed = dialect.confirm(connection, "p1", now, stale.stream()
                .map(e -> new Delivery(e.id().value(), e.leaseVersion(), "m-" + e.event().aggregateId(),
                        null, null))
                .toList());
        assertEquals(Set.of(kept), confirmed, "p1 confirms its current claim only; the taken-over row is p2's (R4.2)");
        assertEquals(List.of("DELIVERED", "m-b"), row("SELECT state, broker_message_id FROM outbox_event"
                + " WHERE event_id = ?", kept));
        assertEquals(List.of("PENDING"), row("SELECT state FROM outbox_event WHERE event_id = ?", taken));
        assertEquals(Set.of(taken), dialect.confirm(connection, "p2", now, List.of(new Delivery(
                taken, takenOver.leaseVersion(), "m-a2", 3, 42L))));
        assertEquals(List.of("DELIVERED", "m-a2", "3", "42"), row("SELECT state, broker_message_id,"
                + " broker_partition, broker_offset FROM outbox_event WHERE event_id = ?", taken));
    }

    @Test
    void theBatchConfirmRefusesAnEarlierLeaseOfTheSameClaimer() throws SQLException {
        UUID id = pending("a", 1, "T");
        OutboundEvent first = claim(connection, "p1", Set.of()).get(0);
        leaseRunsOut(id);
        // The same claimer id takes its own expired row again (a second worker of one server does).
        OutboundEvent again = claim(connection, "p1", Set.of()).get(0);
        assertEquals(Set.of(), dialect.confirm(connection, "p1", now, List.of(new Delivery(id,
                first.leaseVersion(), "m-old", null, null))), "the lease version fences an earlier claim (R4.2)");
        assertEquals(Set.of(id), dialect.confirm(connection, "p1", now, List.of(new Delivery(id,
                again.leaseVersion(), "m-new", null, null))));
    }

    @Test
    void strictEventsWaitBehindAParkedVersionAndIndependentOnesGoOn() throws SQLException {
        UUID v1 = pending("a", 1, "Placed");
        List<OutboundEvent> claimed = claim(connection, "p1", Set.of("Noted"));
        pending("a", 2, "Placed");
        pending("a", 3, "Noted");
        assertEquals(List.of(3L), claim(connection, "p2", Set.of("Noted")).stream()
                .map(e -> e.event().aggregateVersion()).toList(), "Placed@2 waits while p1 holds Placed@1");
        update(OutboxRows.PARK, "MessageTooLarge", v1, "p1", claimed.get(0).leaseVersion());
        update("UPDATE outbox_event SET next_attempt_at = ? WHERE state = 'PENDING'", now.minusSeconds(1));
        assertEquals(List.of(3L), claim(connection, "p1", Set.of("Noted")).stream()
                .map(e -> e.event().aggregateVersion()).toList(), "Placed@2 stays blocked behind the parked Placed@1");
    }

    /** Issue 16 item 10: a hot aggregate drains a run of versions per claim (H2ClaimTest has the twins). */
    @Test
    void aClaimTakesAContiguousRunOfDueVersionsAndStopsAtTheFirstThatIsNotDue() throws SQLException {
        for (int v = 1; v <= 5; v++) {
            pending("hot", v, "T");
        }
        update("UPDATE outbox_event SET next_attempt_at = ? WHERE aggregate_id = 'hot' AND aggregate_version = 4",
                now.plusSeconds(60));
        pending("cold", 1, "T");
        List<String> claimed = claim(connection, "p1", Set.of()).stream()
                .map(e -> e.event().aggregateId() + "@" + e.event().aggregateVersion()).toList();
        assertEquals(List.of("hot@1", "hot@2", "hot@3"), claimed.stream().filter(v -> v.startsWith("hot")).toList(),
                "the run stops at hot@4, in backoff: " + claimed);
        assertTrue(claimed.contains("cold@1"), claimed.toString());
        try (Connection other = connect()) {
            assertEquals(List.of(), claim(other, "p2", Set.of()), "nothing of hot is claimable while the run is leased");
        }
    }

    @Test
    void theInboxInsertAbsorbsADuplicateWithoutAbortingTheTransaction() throws SQLException {
        connection.setAutoCommit(false);
        UUID event = UUID.randomUUID();
        assertTrue(dialect.markProcessed(connection, "shipping", event, "Order", "a", 1L, now, now.plusDays(1)));
        assertFalse(dialect.markProcessed(connection, "shipping", event, "Order", "a", 1L, now, now.plusDays(1)));
        assertEquals(1, update(InboxMarks.INBOX_COUNT_DUPLICATE, "shipping", event), "the transaction is still usable");
        connection.commit();
    }

    @Test
    void theSideEffectLedgerKeepsItsStates() throws SQLException {
        EventId event = EventId.next();
        SideEffectLedger.Attempt first = SideEffectLedger.begin(connection, "mailer", event, "mail", now);
        assertEquals(SideEffectLedger.Previous.NONE, first.previous());
        assertEquals(SideEffectLedger.Previous.STARTED,
                SideEffectLedger.begin(connection, "mailer", event, "mail", now).previous());
        SideEffectLedger.finish(connection, "mailer", first.idempotencyKey(), "SUCCEEDED", "ext-1", now);
        assertEquals(SideEffectLedger.Previous.SUCCEEDED,
                SideEffectLedger.begin(connection, "mailer", event, "mail", now).previous());
    }

    /**
     * Issue 16 item 2 (measured on PostgreSQL 15): a replay puts a delivered row back to pending while a cleanup
     * batch that already chose it waits for its row lock; READ COMMITTED re-checks only the outer WHERE then.
     */
    @Test
    void cleanupNeverDeletesARowThatAReplayPutBackToPendingMeanwhile() throws Exception {
        UUID replayed = pending("r", 1, "T");
        update("UPDATE outbox_event SET state = 'DELIVERED', delivered_at = ? WHERE event_id = ?", now.minusDays(9),
                replayed);
        try (Connection replay = connect(); Connection cleanup = connect()) {
            replay.setAutoCommit(false);
            try (PreparedStatement back = replay.prepareStatement(OutboxRows.REPLAY_ONE)) {
                back.setObject(1, now);
                back.setObject(2, replayed);
                assertEquals(1, back.executeUpdate(), "the replay holds the row, not yet committed");
            }
            CompletableFuture<Integer> deleted = CompletableFuture.supplyAsync(() -> {
                try (PreparedStatement delete = cleanup.prepareStatement(OutboxRows.DELETE_DELIVERED_BATCH)) {
                    delete.setObject(1, now.minusDays(7));
                    delete.setObject(2, now.minusDays(7));
                    delete.setInt(3, 10);
                    return delete.executeUpdate();
                } catch (SQLException e) {
                    throw new IllegalStateException(e);
                }
            });
            Thread.sleep(1_000); // the cleanup statement has chosen its rows and waits for the replay's lock
            replay.commit();
            assertEquals(0, deleted.get(10, TimeUnit.SECONDS), "cleanup deleted a row a replay had just put back");
        }
        assertEquals(List.of("PENDING"), row("SELECT state FROM outbox_event WHERE event_id = ?", replayed),
                "the replayed event is still there to be sent (R9.3)");
    }

    /** Issue 16 item 6: the claim carries no clock of the claimer's; the lease runs on the database's clock. */
    @Test
    void aLeaseRunsOnTheDatabasesClock() throws SQLException {
        UUID id = pending("a", 1, "T");
        assertEquals(1, claim(connection, "p1", Set.of()).size());
        double left = Double.parseDouble(row("SELECT EXTRACT(EPOCH FROM lease_until - clock_timestamp())"
                + " FROM outbox_event WHERE event_id = ?", id).get(0));
        assertTrue(left > 28 && left <= 30, "30 s of lease by the database's clock, left: " + left);
        assertEquals(List.of(), claim(connection, "p2", Set.of()), "a live lease is not due for another claimer");
    }

    /** One delivery as the inbox runs it: the mark, then the version gate; a HOLD rolls both back. */
    private String deliver(String consumer, UUID id, long version, Ordering ordering, Duration held) throws SQLException {
        connection.setAutoCommit(false);
        try {
            if (!dialect.markProcessed(connection, consumer, id, "Order", "o-1", version, now, now.plusDays(30))) {
                connection.commit();
                return "DUPLICATE";
            }
            VersionCheck.Verdict verdict = new VersionGate(dialect, Duration.ofSeconds(2), (c, e) -> held)
                    .pass(connection, consumer, new EventId(id), "Order", "o-1", version, ordering);
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

    /** Issue 16 items 3 and 4 on PostgreSQL: the version gate's SQL (FOR UPDATE, ON CONFLICT) as on H2. */
    @Test
    void theVersionGateAppliesIndependentTypesOutOfOrderAndKeepsItsHighWaterMarkPastRetention() throws SQLException {
        Duration none = Duration.ZERO;
        UUID v1 = UUID.randomUUID();
        assertEquals("APPLY", deliver("c", v1, 1, Ordering.STRICT, none));
        assertEquals("APPLY", deliver("c", UUID.randomUUID(), 3, Ordering.INDEPENDENT, none), "ahead of its turn");
        assertEquals("APPLY", deliver("c", UUID.randomUUID(), 2, Ordering.INDEPENDENT, none), "v2 after v3: applied");
        assertEquals(List.of("3"), row("SELECT high_water FROM inbox_high_water WHERE consumer = 'c'"));
        UUID v5 = UUID.randomUUID();
        assertEquals("HOLD", deliver("c", v5, 5, Ordering.STRICT, none), "a strict gap is held");
        assertEquals("APPLY_AFTER_GAP", deliver("c", v5, 5, Ordering.STRICT, Duration.ofSeconds(2)));
        assertEquals("STALE", deliver("c", UUID.randomUUID(), 4, Ordering.STRICT, none), "never backwards");
        update("DELETE FROM processed_event");
        assertEquals("APPLY", deliver("c", UUID.randomUUID(), 6, Ordering.STRICT, none), "no gap after retention");
        assertEquals("STALE", deliver("c", v1, 1, Ordering.STRICT, none), "an old replay is not applied again");
        assertEquals("HOLD", deliver("other", UUID.randomUUID(), 2, Ordering.STRICT, none), "a consumer of its own");
    }

    @Test
    void aHoldStartsOnceAndAgesOnTheDatabasesClock() throws Exception {
        UUID event = UUID.randomUUID();
        dialect.startHold(connection, "c", event);
        Thread.sleep(50);
        dialect.startHold(connection, "c", event);
        double age = Double.parseDouble(row("SELECT EXTRACT(EPOCH FROM clock_timestamp() - held_since) FROM inbox_hold"
                + " WHERE consumer = 'c' AND event_id = ?", event).get(0));
        assertTrue(age >= 0.05, "held since the first start: " + age);
    }
}
