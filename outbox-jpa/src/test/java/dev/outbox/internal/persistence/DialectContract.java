package dev.outbox.internal.persistence;

import dev.outbox.EventId;
import dev.outbox.Inbox;
import dev.outbox.InboxedEvent;
import dev.outbox.Ordering;
import dev.outbox.OutboxEvent;
import dev.outbox.TraceContext;
import dev.outbox.internal.event.PreviousVersions;
import dev.outbox.internal.failure.Causes;
import dev.outbox.internal.inbox.Received;
import dev.outbox.internal.inbox.Resequencer;
import dev.outbox.spi.OutboundEvent;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * What every {@link Dialect} must do on its real database, at the SQL level: the claim and its lease on the
 * database's clock, the confirm that counts only for the current claim, the ordering policy, the inbox's marks,
 * version gate and holds, cleanup, and the replay requesters' lock. One subclass per database runs it:
 * {@code H2DialectContractTest} here, {@code PostgreSqlDialectContractIT} in itests, and
 * {@link ConfiguredDatabaseContractTest} against any database a JDBC URL names (the kit for a new dialect,
 * docs/testing.md). Each test starts from empty outbox tables.
 */
public abstract class DialectContract {

    /** The dialect under test. */
    protected abstract Dialect dialect();

    /** A connection to a database (or schema) of this test's own, with the schema scripts applied and no rows. */
    protected abstract Connection openFresh() throws SQLException;

    /** Another connection to the same database as {@link #openFresh}, for a second transaction. */
    protected abstract Connection connect() throws SQLException;

    /** Drops what {@link #openFresh} made, after the test's connection is closed. */
    protected void dropFresh() throws SQLException {
    }

    /**
     * Whether a claim skips rows another uncommitted claim has locked (FOR UPDATE SKIP LOCKED) rather than waiting
     * for them: the client-server dialects must; the embedded H2 default serialises its claimers instead.
     */
    protected boolean skipsLockedRows() {
        return true;
    }

    protected Connection connection;
    /** The database's time at the start of the test: rows are recorded and due a little before it. */
    protected OffsetDateTime now;

    @BeforeEach
    void fresh() throws SQLException {
        connection = openFresh();
        now = Sql.clock(connection);
    }

    @AfterEach
    void drop() throws SQLException {
        if (connection != null) { // openFresh failed: its own error is the one to read
            connection.close();
            dropFresh();
        }
    }

    // --- The claim and its lease (R4.1, R4.3) --------------------------------------------------------------------

    @Test
    void aClaimLeasesDueRowsOnceAndCountsTheAttempt() throws SQLException {
        pending("a", 1, "T");
        pending("b", 1, "T");
        List<OutboundEvent> first = claim("p1", 10, Set.of());
        assertEquals(2, first.size());
        assertTrue(first.stream().allMatch(e -> e.attempt() == 1 && e.leaseVersion() == 1), first.toString());
        assertEquals(List.of(), claim("p2", 10, Set.of()), "leased rows are not due for another claimer");
    }

    @Test
    void theBatchSizeBoundsAClaim() throws SQLException {
        for (int i = 0; i < 5; i++) {
            pending("agg-" + i, 1, "T");
        }
        assertEquals(3, claim("p1", 3, Set.of()).size());
        assertEquals(2, claim("p2", 3, Set.of()).size());
    }

    /** Issue 16 item 6: a claim carries no clock of the claimer's; the lease runs on the database's clock. */
    @Test
    void aLeaseRunsOnTheDatabasesClock() throws SQLException {
        UUID id = pending("a", 1, "T");
        assertEquals(1, claim("p1", 10, Set.of()).size());
        try (PreparedStatement select = connection.prepareStatement("SELECT lease_until, CURRENT_TIMESTAMP(6) AS db_now"
                + " FROM outbox_event WHERE event_id = ?")) {
            select.setObject(1, id);
            try (ResultSet rs = select.executeQuery()) {
                assertTrue(rs.next());
                Duration left = Duration.between(rs.getObject("db_now", OffsetDateTime.class),
                        rs.getObject("lease_until", OffsetDateTime.class));
                assertTrue(left.compareTo(Duration.ofSeconds(28)) > 0 && left.compareTo(Duration.ofSeconds(30)) <= 0,
                        "30 s of lease by the database's clock, left: " + left);
            }
        }
        assertEquals(List.of(), claim("p2", 10, Set.of()), "a live lease is not due for another claimer");
    }

    @Test
    void theRecordersRowsAreDueAtTheDatabasesTimeAndCarryTheEventAsRecorded() throws SQLException {
        // The recording server's clock an hour ahead: the rows must be due now all the same (issue 16 item 6).
        EventId placed = EventId.next();
        EventId paid = EventId.next();
        dialect().record(connection, List.of(
                new PendingRow(placed, OutboxEvent.of("Order", "o-clock", 1, "OrderPlaced", "{\"total\":12}"),
                        now.plusHours(1), false),
                new PendingRow(paid, OutboxEvent.referencing("Order", "o-clock", 2, "OrderPaid",
                        URI.create("https://receipts.example/r/7")), now.plusHours(1), false)));
        List<OutboundEvent> claimed = claim("p1", 10, Set.of());
        assertEquals(List.of(placed, paid), claimed.stream().map(OutboundEvent::id).toList(),
                "both recorded rows are due at once by the database's clock, in version order");
        assertEquals("{\"total\":12}", claimed.get(0).event().payload());
        assertEquals(URI.create("https://receipts.example/r/7"), claimed.get(1).event().payloadReference());
        assertEquals(List.of("PUBLISH", "PUBLISH", "2"), row("SELECT MIN(publish_mode), MAX(publish_mode), COUNT(*)"
                + " FROM outbox_event"), "both bound to the outbox's own publishing (R8.3)");
    }

    @Test
    void theTraceContextAnEventWasRecordedInComesBackWithItsClaimAndAnUntracedEventHasNone() throws SQLException {
        // R6.7: the publisher sends what the recorder stored, byte for byte; tracestate keeps its members' order.
        TraceContext recordedIn = new TraceContext("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
                "vendor2=x,vendor1=opaque-value");
        EventId traced = EventId.next();
        EventId untraced = EventId.next();
        dialect().record(connection, List.of(
                new PendingRow(traced, OutboxEvent.of("Order", "o-trace", 1, "OrderPlaced", "{}"), now, false,
                        recordedIn),
                new PendingRow(untraced, OutboxEvent.of("Order", "o-trace", 2, "OrderPaid", "{}"), now, false)));
        List<OutboundEvent> claimed = claim("p1", 10, Set.of());
        assertEquals(List.of(traced, untraced), claimed.stream().map(OutboundEvent::id).toList());
        assertEquals(recordedIn, claimed.get(0).trace(), "the recorded context, as recorded");
        assertNull(claimed.get(1).trace(), "an event recorded outside a span carries no context");
    }

    @Test
    void eachRecordedEventCarriesTheLatestEarlierVersionOfEveryTypeBeforeItAcrossCommandsAndClaims()
            throws SQLException {
        // R5.7: what a consumer receiving only some types waits for, set at record time and sent with the claim.
        dialect().record(connection, List.of(
                new PendingRow(EventId.next(), OutboxEvent.of("Order", "o-types", 1, "OrderPlaced", "{}"), now, false),
                new PendingRow(EventId.next(), OutboxEvent.of("Order", "o-types", 2, "OrderPaid", "{}"), now, false)));
        dialect().record(connection, List.of(
                new PendingRow(EventId.next(), OutboxEvent.of("Order", "o-types", 3, "OrderNoted", "{}"), now, false)));
        dialect().record(connection, List.of(
                new PendingRow(EventId.next(), OutboxEvent.of("Order", "o-types", 4, "OrderPaid", "{}"), now, false),
                new PendingRow(EventId.next(), OutboxEvent.of("Order", "o-other", 1, "OrderPlaced", "{}"), now, false)));
        // An aggregate whose earlier events were cleaned up: none known, said so (empty), not left unsaid (null).
        dialect().record(connection, List.of(
                new PendingRow(EventId.next(), OutboxEvent.of("Order", "o-cleaned", 7, "OrderPaid", "{}"), now, false)));

        // Recorded out of version order in one command: each still follows the one before it.
        dialect().record(connection, List.of(
                new PendingRow(EventId.next(), OutboxEvent.of("Order", "o-batch", 2, "OrderPaid", "{}"), now, false),
                new PendingRow(EventId.next(), OutboxEvent.of("Order", "o-batch", 1, "OrderPlaced", "{}"), now, false)));
        // Rows of an older release (no previous versions): the aggregate's remaining rows are read by type instead.
        RecordedRow.pending("Order", "o-legacy", 1, "OrderPlaced").insert(connection);
        RecordedRow.pending("Order", "o-legacy", 2, "OrderPaid").insert(connection);
        dialect().record(connection, List.of(
                new PendingRow(EventId.next(), OutboxEvent.of("Order", "o-legacy", 3, "OrderNoted", "{}"), now, false)));

        Map<String, String> previous = new TreeMap<>();
        for (OutboundEvent event : claim("p1", 20, Set.of("OrderPaid", "OrderNoted", "OrderPlaced"))) {
            previous.put(event.event().aggregateId() + "@" + event.event().aggregateVersion(),
                    String.valueOf(event.previousVersions()));
        }
        assertEquals(Map.ofEntries(Map.entry("o-types@1", ""), Map.entry("o-types@2", "OrderPlaced=1"),
                Map.entry("o-types@3", "OrderPaid=2,OrderPlaced=1"),
                Map.entry("o-types@4", "OrderNoted=3,OrderPaid=2,OrderPlaced=1"), Map.entry("o-other@1", ""),
                Map.entry("o-cleaned@7", ""), Map.entry("o-batch@1", ""), Map.entry("o-batch@2", "OrderPlaced=1"),
                Map.entry("o-legacy@1", "null"), Map.entry("o-legacy@2", "null"),
                Map.entry("o-legacy@3", "OrderPaid=2,OrderPlaced=1")), previous,
                "in one command (in version order), from the row before in another, from an older release's rows"
                        + " (null: they carry none), and for a first event or a history with nothing left (empty)");
    }

    @Test
    void aConsumerReceivingSomeTypesWaitsOnlyForItsOwnTypesAndItsSweepFindsItReady() throws Exception {
        // R5.7 on every database: marks and waiting rows keep the version waited for; the high-water walk and the
        // release sweep's query read it. History: v1 OrderPlaced, v2 OrderPaid, v3 OrderNoted, v4 OrderPaid.
        Resequencer payments = new Resequencer(new InboxStore(connection, dialect()), Duration.ofDays(30), Set.of(),
                Map.of("payments", Set.of("OrderPaid")));
        List<Long> applied = new ArrayList<>();
        PreviousVersions beforeV4 = PreviousVersions.parse("OrderNoted=3,OrderPaid=2,OrderPlaced=1");
        connection.setAutoCommit(false);
        assertEquals(Inbox.Receipt.WAITING, payments.receive("payments", new Received(new InboxedEvent(EventId.next(),
                "OrderPaid", "Order", "o-1", 4L, 1, Ordering.STRICT, "{}"), "q@4", Map.of(), beforeV4),
                turn -> applied.add(turn.event().aggregateVersion()), Resequencer.RELEASE_ALL).receipt());
        assertEquals(Inbox.Receipt.NOT_RECEIVED, payments.receive("payments", new Received(new InboxedEvent(
                EventId.next(), "OrderPlaced", "Order", "o-1", 1L, 1, Ordering.STRICT, "{}"), "q@1", Map.of(),
                PreviousVersions.NONE), turn -> applied.add(turn.event().aggregateVersion()),
                Resequencer.RELEASE_ALL).receipt());
        connection.commit();
        assertEquals(List.of(), payments.ready("payments", 10), "v4 waits for OrderPaid v2");
        payments.skip("payments", "Order", "o-1", 2, "alice", "v2 paid by hand");
        connection.commit();
        assertEquals(1, payments.ready("payments", 10).size(), "after the skip, v4 waits for nothing: ready");
        payments.releaseReady("payments", "Order", "o-1", turn -> applied.add(turn.event().aggregateVersion()),
                Resequencer.RELEASE_ALL);
        connection.commit();
        connection.setAutoCommit(true);
        assertEquals(List.of(4L), applied);
        assertEquals(List.of("4", "2"), row("SELECT aggregate_version, previous_version FROM processed_event"
                + " WHERE consumer = 'payments'"), "v4's mark, the only one, keeps the version it followed");
    }

    @Test
    void theRecordersInsertRefusesASecondEventForTheSameAggregateVersionAlsoInABatch() throws SQLException {
        OutboxEvent placed = OutboxEvent.of("Order", "o-dup", 1, "OrderPlaced", "{}");
        dialect().record(connection, List.of(new PendingRow(EventId.next(), placed, now, false)));
        SQLException single = assertThrows(SQLException.class, () -> dialect().record(connection,
                List.of(new PendingRow(EventId.next(), placed, now, false))));
        assertTrue(Causes.isUniqueViolation(single), "R3.3: one event per aggregate version: " + single);
        SQLException batch = assertThrows(SQLException.class, () -> dialect().record(connection, List.of(
                new PendingRow(EventId.next(), OutboxEvent.of("Order", "o-dup", 2, "OrderPaid", "{}"), now, false),
                new PendingRow(EventId.next(), placed, now, true))));
        assertTrue(Causes.isUniqueViolation(batch), "a batch names the duplicate too: " + batch);
    }

    @Test
    void twoClaimersRacingGetDisjointRowsWithoutWaiting() throws Exception {
        assumeTrue(skipsLockedRows(), "this dialect serialises its claimers");
        for (int i = 0; i < 6; i++) {
            pending("agg-" + i, 1, "T");
        }
        try (Connection first = connect(); Connection second = connect()) {
            first.setAutoCommit(false);
            second.setAutoCommit(false);
            List<OutboundEvent> a = dialect().claim(first, request("p1", 4, Set.of()));
            // p1 has not committed: its rows are locked, and p2 skips them instead of waiting (R4.1).
            CompletableFuture<List<OutboundEvent>> racing = inAnotherThread(() -> dialect().claim(second,
                    request("p2", 4, Set.of())));
            List<OutboundEvent> b;
            try {
                b = racing.get(5, TimeUnit.SECONDS);
            } catch (TimeoutException e) {
                first.rollback(); // lets the waiting claim go on before the connections close
                throw new AssertionError("the second claimer waited for the first one's locked rows instead of"
                        + " skipping them");
            }
            first.commit();
            second.commit();
            assertEquals(4, a.size());
            assertEquals(2, b.size());
            assertTrue(a.stream().noneMatch(x -> b.stream().anyMatch(y -> y.id().equals(x.id()))), "disjoint claims");
        }
    }

    // --- The confirm counts only for the current claim (R4.2) --------------------------------------------------

    @Test
    void confirmParkAndRetryOnlyCountForTheClaimThatIsStillCurrent() throws SQLException {
        UUID id = pending("a", 1, "T");
        OutboundEvent stale = claim("p1", 10, Set.of()).get(0);
        leaseRunsOut(id); // p1's lease runs out; p2 takes the row over (R4.3)
        OutboundEvent current = claim("p2", 10, Set.of()).get(0);
        assertEquals(stale.id(), current.id(), "the takeover sends the same event id");
        assertEquals(0, update(OutboxRows.CONFIRM, now, "m-1", null, null, id, "p1", stale.leaseVersion()),
                "a lost lease never overwrites the new claimer's result");
        assertEquals(0, update(OutboxRows.PARK, "X", now, id, "p1", stale.leaseVersion()));
        assertEquals(0, update(OutboxRows.RETRY_LATER, now, "X", id, "p1", stale.leaseVersion()));
        assertEquals(List.of("PENDING"), row("SELECT state FROM outbox_event WHERE event_id = ?", id));
        assertEquals(1, update(OutboxRows.CONFIRM, now, "m-2", 0, 7L, id, "p2", current.leaseVersion()));
        assertEquals(List.of("DELIVERED"), row("SELECT state FROM outbox_event WHERE event_id = ?", id));
    }

    @Test
    void aParkedRowSaysWhenItParkedAndKeepsItThroughAResume() throws SQLException {
        UUID id = pending("a", 1, "T");
        OutboundEvent claimed = claim("p1", 10, Set.of()).get(0);
        OffsetDateTime parkedAt = Sql.clock(connection);
        assertEquals(1, update(OutboxRows.PARK, "MessageTooLarge", parkedAt, id, "p1", claimed.leaseVersion()));
        assertEquals(List.of("1"), row("SELECT COUNT(*) FROM (" + OutboxRows.PARKED_PAGE.replace("?", "10")
                + ") p WHERE p.event_id = ? AND p.parked_at = ?", id, parkedAt), "the parked list shows when (R6.6)");
        assertEquals(1, update(OutboxRows.RESUME_PARKED, now, id));
        assertEquals(List.of("PENDING", "MessageTooLarge", "1"), row("SELECT state, last_error_class,"
                + " CASE WHEN parked_at = ? THEN 1 ELSE 0 END FROM outbox_event WHERE event_id = ?", parkedAt, id),
                "a resumed event keeps its park time as evidence, like its last error class");
    }

    @Test
    void theBatchConfirmWritesOnlyTheRowsWhoseClaimIsCurrent() throws SQLException {
        UUID taken = pending("a", 1, "T");
        UUID kept = pending("b", 1, "T");
        List<OutboundEvent> stale = claim("p1", 10, Set.of());
        leaseRunsOut(taken);
        OutboundEvent takenOver = claim("p2", 10, Set.of()).get(0);
        assertEquals(taken, takenOver.id().value(), "p2 took over the row whose lease ran out");
        Set<UUID> confirmed = dialect().confirm(connection, "p1", now, stale.stream()
                .map(e -> new Delivery(e.id().value(), e.leaseVersion(), "m-" + e.event().aggregateId(), null, null))
                .toList());
        assertEquals(Set.of(kept), confirmed, "p1 confirms its current claim only; the taken-over row is p2's");
        assertEquals(List.of("DELIVERED", "m-b"), row("SELECT state, broker_message_id FROM outbox_event"
                + " WHERE event_id = ?", kept));
        assertEquals(List.of("PENDING"), row("SELECT state FROM outbox_event WHERE event_id = ?", taken));
        assertEquals(Set.of(taken), dialect().confirm(connection, "p2", now, List.of(new Delivery(
                taken, takenOver.leaseVersion(), "m-a2", 3, 42L))));
        assertEquals(List.of("DELIVERED", "m-a2", "3", "42"), row("SELECT state, broker_message_id,"
                + " broker_partition, broker_offset FROM outbox_event WHERE event_id = ?", taken));
    }

    @Test
    void theBatchConfirmRefusesAnEarlierLeaseOfTheSameClaimer() throws SQLException {
        UUID id = pending("a", 1, "T");
        OutboundEvent first = claim("p1", 10, Set.of()).get(0);
        leaseRunsOut(id);
        // The same claimer id takes its own expired row again (a second worker of one server does).
        OutboundEvent again = claim("p1", 10, Set.of()).get(0);
        assertEquals(Set.of(), dialect().confirm(connection, "p1", now, List.of(new Delivery(id,
                first.leaseVersion(), "m-old", null, null))), "the lease version fences an earlier claim");
        assertEquals(Set.of(id), dialect().confirm(connection, "p1", now, List.of(new Delivery(id,
                again.leaseVersion(), "m-new", null, null))));
    }

    // --- Retries (R4.5) ------------------------------------------------------------------------------------------

    /** A version held back behind its run, or left when the lease ran short, costs no attempt and stays due. */
    @Test
    void anEventThatWasNeverSentGetsItsAttemptBackAndStaysDue() throws SQLException {
        UUID id = pending("a", 1, "T");
        OutboundEvent claimed = claim("p1", 10, Set.of()).get(0);
        assertEquals(1, update(OutboxRows.RETRY_NOT_SENT, now.minusSeconds(1), id, "p1", claimed.leaseVersion()));
        assertEquals(1, claim("p2", 10, Set.of()).get(0).attempt(), "the first real attempt is attempt 1");
    }

    @Test
    void aRetryMakesTheRowDueAgainAtItsBackoffTime() throws SQLException {
        UUID id = pending("a", 1, "T");
        OutboundEvent claimed = claim("p1", 10, Set.of()).get(0);
        assertEquals(1, update(OutboxRows.RETRY_LATER, now.plusSeconds(60), "TransientFailure", id, "p1",
                claimed.leaseVersion()));
        assertEquals(List.of(), claim("p1", 10, Set.of()), "not due before the backoff ends");
        leaseRunsOut(id);
        assertEquals(2, claim("p1", 10, Set.of()).get(0).attempt(), "the same row, attempt 2");
    }

    // --- The ordering policy (R4.6) ------------------------------------------------------------------------------

    @Test
    void aStrictEventWaitsForEveryEarlierVersionOfItsAggregate() throws SQLException {
        UUID v1 = pending("a", 1, "T");
        List<OutboundEvent> first = claim("p1", 10, Set.of());
        assertEquals(List.of("a@1"), versions(first));
        pending("a", 2, "T");
        pending("b", 1, "T");
        assertEquals(List.of("b@1"), versions(claim("p2", 10, Set.of())), "a@2 waits while another claim holds a@1");
        update(OutboxRows.PARK, "MessageTooLarge", now, v1, "p1", first.get(0).leaseVersion());
        update("UPDATE outbox_event SET next_attempt_at = ? WHERE aggregate_id = 'a'", now.minusSeconds(1));
        assertEquals(List.of(), claim("p1", 10, Set.of()), "a parked a@1 blocks a@2");
    }

    @Test
    void anIndependentEventDoesNotWaitForEarlierVersions() throws SQLException {
        UUID v1 = pending("a", 1, "Placed");
        pending("a", 2, "Noted");
        List<OutboundEvent> claimed = claim("p1", 10, Set.of("Noted"));
        assertEquals(List.of(1L, 2L), claimed.stream().map(e -> e.event().aggregateVersion()).toList(),
                "Noted is independent: claimed while Placed@1 is still undelivered");
        update(OutboxRows.PARK, "MessageTooLarge", now, v1, "p1", claimed.get(0).leaseVersion());
        pending("a", 3, "Noted");
        assertEquals(List.of(3L), claim("p1", 10, Set.of("Noted")).stream()
                .map(e -> e.event().aggregateVersion()).toList(), "and goes on past a parked one (R7.5)");
        pending("a", 4, "Placed");
        assertEquals(List.of(), claim("p1", 10, Set.of("Noted")), "a strict Placed@4 stays blocked");
    }

    @Test
    void anIndependentEventIsClaimedElsewhereWhileAnEarlierStrictVersionIsLeasedAndAStrictOneWaits() throws SQLException {
        UUID v1 = pending("a", 1, "Placed");
        List<OutboundEvent> claimed = claim("p1", 10, Set.of("Noted"));
        pending("a", 2, "Placed");
        pending("a", 3, "Noted");
        assertEquals(List.of(3L), claim("p2", 10, Set.of("Noted")).stream()
                .map(e -> e.event().aggregateVersion()).toList(), "Placed@2 waits while p1 holds Placed@1");
        update(OutboxRows.PARK, "MessageTooLarge", now, v1, "p1", claimed.get(0).leaseVersion());
        update("UPDATE outbox_event SET next_attempt_at = ? WHERE state = 'PENDING'", now.minusSeconds(1));
        assertEquals(List.of(3L), claim("p1", 10, Set.of("Noted")).stream()
                .map(e -> e.event().aggregateVersion()).toList(), "Placed@2 stays blocked behind the parked Placed@1");
    }

    /** Issue 16 item 10: a hot aggregate drains a run of versions per claim, not one per round trip. */
    @Test
    void aClaimTakesAContiguousRunOfAStrictAggregatesDueVersions() throws SQLException {
        for (int v = 1; v <= 5; v++) {
            pending("hot", v, "T");
        }
        pending("cold", 1, "T");
        List<String> claimed = versions(claim("p1", 10, Set.of()));
        assertEquals(List.of("hot@1", "hot@2", "hot@3", "hot@4", "hot@5"), of(claimed, "hot"),
                "every due version of a strict aggregate, in version order: " + claimed);
        assertEquals(List.of("cold@1"), of(claimed, "cold"), "and the other aggregates' heads: " + claimed);
        try (Connection other = connect()) {
            assertEquals(List.of(), dialect().claim(other, request("p2", 10, Set.of())),
                    "nothing of hot is claimable while the run is leased");
        }
    }

    /**
     * A run ends at the batch limit and at the first version that is not pending and due: a version in backoff
     * or parked holds the ones after it back, as it does across claims.
     */
    @Test
    void aRunStopsAtTheBatchLimitAndAtTheFirstVersionThatIsNotDue() throws SQLException {
        for (int v = 1; v <= 4; v++) {
            pending("a", v, "T");
        }
        update("UPDATE outbox_event SET next_attempt_at = ? WHERE aggregate_id = 'a' AND aggregate_version = 3",
                now.plusSeconds(60));
        assertEquals(List.of("a@1", "a@2"), versions(claim("p1", 10, Set.of())), "a@3 waits for its backoff,"
                + " and a@4 behind it");
        for (int v = 1; v <= 3; v++) {
            pending("b", v, "T");
        }
        assertEquals(List.of("b@1", "b@2"), versions(claim("p2", 2, Set.of())), "the limit cuts the run");
        assertEquals(List.of(), claim("p3", 10, Set.of()), "b@3 waits while b@2 is claimed");
    }

    /**
     * An independent version in the claim (a candidate of its own) does not end the run; StrictRuns holds the strict
     * version after it until it is delivered. One another claim holds ends the run: the versions after it wait.
     */
    @Test
    void aRunGoesOnPastAnIndependentVersionOfTheSameClaimAndStopsAtOneLeasedElsewhere() throws SQLException {
        pending("a", 1, "Placed");
        pending("a", 2, "Noted");
        pending("a", 3, "Placed");
        assertEquals(List.of("a@1", "a@2", "a@3"), versions(claim("p1", 10, Set.of("Noted"))).stream()
                .sorted().toList());
        pending("b", 1, "Placed");
        pending("b", 2, "Noted");
        pending("b", 3, "Placed");
        update("UPDATE outbox_event SET next_attempt_at = ? WHERE aggregate_id = 'b' AND aggregate_version = 2",
                now.minusSeconds(60));
        assertEquals(List.of("b@2"), versions(claim("p2", 1, Set.of("Noted"))), "Noted@2 came due first");
        assertEquals(List.of("b@1"), versions(claim("p3", 10, Set.of("Noted"))), "b@3 waits behind b@2, which p2 holds");
    }

    /**
     * R4.1: a claim leases at most its limit whatever plan the planner picks. PostgreSQL may run a locking
     * {@code IN (SELECT ... LIMIT n FOR UPDATE SKIP LOCKED)} as the inner side of a nested loop, once per row of the
     * table being updated: each run skips the rows the statement has already updated and returns the next due one, so
     * the limit is applied per run and the claim takes more (seen in CI on 2026-12-07: a claim of 1 leased b@1 and b@2).
     * The planner settings here force that plan; b@2, the due one, comes before b@1 in the outer scan whether it reads
     * the table or its key (inserted first, the lower id).
     */
    @Test
    void aClaimLeasesNoMoreThanItsLimitWhicheverJoinThePlannerPicks() throws SQLException {
        assumeTrue("postgresql".equals(dialect().name()), "PostgreSQL's planner: the others claim in two statements");
        RecordedRow.pending("Order", "b", 2, "Noted").withId(UUID.fromString("00000000-0000-0000-0000-000000000002"))
                .recordedAt(now.minusSeconds(10)).dueAt(now.minusSeconds(60)).insert(connection);
        RecordedRow.pending("Order", "b", 1, "Placed").withId(UUID.fromString("ffffffff-0000-0000-0000-000000000001"))
                .recordedAt(now.minusSeconds(10)).dueAt(now.minusSeconds(10)).insert(connection);
        try (var planner = connection.createStatement()) {
            planner.execute("ANALYZE outbox_event");
            for (String off : List.of("material", "hashagg", "hashjoin", "mergejoin", "sort", "bitmapscan")) {
                planner.execute("SET enable_" + off + " = off");
            }
        }
        try {
            assertEquals(List.of("b@2"), versions(claim("p1", 1, Set.of("Noted"))),
                    "a claim of 1 leases the due Noted@2 and nothing else");
        } finally {
            try (var planner = connection.createStatement()) {
                planner.execute("RESET ALL");
            }
        }
    }

    /**
     * Issue 44 (a review of the first PostgreSQL followers statement): the batch's own independent versions of a strict
     * aggregate do not use up its run. With a limit of 3, a@1 and the independent a@2 are heads and a@3 follows.
     */
    @Test
    void aRunIsNotShortenedByTheBatchsOwnIndependentVersionsOfTheAggregate() throws SQLException {
        pending("a", 1, "Placed");
        pending("a", 2, "Noted");
        pending("a", 3, "Placed");
        assertEquals(List.of("a@1", "a@2", "a@3"), versions(claim("p1", 3, Set.of("Noted"))).stream().sorted()
                .toList(), "a@3 follows a@1 in the same claim; a@2, a head of its own, takes no room from the run");
    }

    /**
     * Issue 44: a claim whose heads leave room reads their followers from the heads, in a few pages, whatever the
     * backlog. The shared statement let PostgreSQL walk the whole undelivered index in (aggregate, version) order
     * until it met the heads' followers, in proportion to the backlog: the two-worker drain's collapse. Counted in
     * buffers the plan touched, not in time.
     */
    @Test
    void theFollowersOfAClaimsHeadsAreReadFromTheHeadsNotByWalkingTheBacklog() throws SQLException {
        assumeTrue("postgresql".equals(dialect().name()), "PostgreSQL's planner; the others keep the shared statement");
        try (var load = connection.createStatement()) {
            // 40,000 undelivered versions of 2,000 aggregates, recorded round by round (every aggregate's v1, then v2)
            load.execute("INSERT INTO outbox_event (" + RecordedRow.COLUMNS + ") SELECT md5(g::text)::uuid, 'Order',"
                    + " 'a-' || (g % 2000), g / 2000 + 1, 'T', 1, '{}', NULL, now(), 'PENDING', 0, now(), 0, NULL"
                    + " FROM generate_series(0, 39999) g");
            load.execute("ANALYZE outbox_event");
        }
        // A short claim's 200 heads, of the aggregates that sort last: a walk in index order meets them at the end.
        List<UUID> heads = new ArrayList<>();
        try (PreparedStatement select = connection.prepareStatement("SELECT event_id FROM outbox_event"
                + " WHERE aggregate_version = 1 ORDER BY aggregate_id DESC FETCH FIRST 200 ROWS ONLY");
             ResultSet rs = select.executeQuery()) {
            while (rs.next()) {
                heads.add(rs.getObject(1, UUID.class));
            }
        }
        String plan;
        try (PreparedStatement explain = connection.prepareStatement("EXPLAIN (ANALYZE, BUFFERS) "
                + PostgreSqlDialect.followersOf(heads.size(), 300))) {
            for (int i = 0; i < heads.size(); i++) {
                explain.setObject(i + 1, heads.get(i));
            }
            explain.setInt(heads.size() + 1, 500);
            StringBuilder lines = new StringBuilder();
            try (ResultSet rs = explain.executeQuery()) {
                while (rs.next()) {
                    lines.append(rs.getString(1)).append('\n');
                }
            }
            plan = lines.toString();
        }
        // The top node's line is the first "Buffers:" line: its hits and reads, either of which may be left out.
        String top = plan.lines().filter(line -> line.trim().startsWith("Buffers:")).findFirst().orElseThrow(
                () -> new AssertionError("no buffer counts in\n" + plan));
        long touched = 0;
        java.util.regex.Matcher count = java.util.regex.Pattern.compile("(?:hit|read)=(\\d+)").matcher(top);
        while (count.find()) {
            touched += Long.parseLong(count.group(1));
        }
        // Read from the heads: 200 key lookups and 200 short index ranges with their rows, some 5,000 pages; a walk
        // of the undelivered index probes a row of each of the 40,000 entries it passes.
        assertTrue(touched < 15_000, "the followers of 200 heads took " + touched + " buffers: the plan walks the"
                + " backlog\n" + plan);
    }

    // --- The inbox (R5.1, R5.7) ----------------------------------------------------------------------------------

    @Test
    void theInboxMarksAnEventOncePerConsumer() throws SQLException {
        UUID event = UUID.randomUUID();
        assertTrue(dialect().markProcessed(connection, "shipping", event, "Order", "a", 1L, now, now.plusDays(30)));
        assertFalse(dialect().markProcessed(connection, "shipping", event, "Order", "a", 1L, now, now.plusDays(30)));
        assertTrue(dialect().markProcessed(connection, "invoicing", event, "Order", "a", 1L, now, now.plusDays(30)));
    }

    @Test
    void theInboxMarkAbsorbsADuplicateWithoutAbortingTheTransaction() throws SQLException {
        connection.setAutoCommit(false);
        UUID event = UUID.randomUUID();
        assertTrue(dialect().markProcessed(connection, "shipping", event, "Order", "a", 1L, now, now.plusDays(1)));
        assertFalse(dialect().markProcessed(connection, "shipping", event, "Order", "a", 1L, now, now.plusDays(1)));
        assertEquals(1, update(InboxMarks.INBOX_COUNT_DUPLICATE, "shipping", event), "the transaction is still usable");
        connection.commit();
        connection.setAutoCommit(true);
    }

    /** Issue 16 items 3 and 4: independent types out of order, and a high-water mark that outlives retention. */
    @Test
    void theResequencerAppliesIndependentTypesOutOfOrderAndKeepsItsHighWaterMarkPastRetention() throws Exception {
        Inboxed inbox = new Inboxed();
        EventId v1 = EventId.next();
        assertEquals("FIRST", inbox.deliver("c", v1, 1, Ordering.STRICT));
        assertEquals("FIRST", inbox.deliver("c", EventId.next(), 3, Ordering.INDEPENDENT), "ahead of its turn");
        assertEquals("FIRST", inbox.deliver("c", EventId.next(), 2, Ordering.INDEPENDENT), "v2 after v3: applied");
        assertEquals(List.of("3"), row("SELECT high_water FROM inbox_high_water WHERE consumer = 'c'"));
        update("DELETE FROM processed_event");
        assertEquals("FIRST", inbox.deliver("c", EventId.next(), 4, Ordering.STRICT), "no gap after retention");
        assertEquals("CONFLICT", inbox.deliver("c", v1, 1, Ordering.STRICT),
                "an old version past its mark's retention is parked for an operator, never taken for new or dropped");
        assertEquals("WAITING", inbox.deliver("other", EventId.next(), 2, Ordering.STRICT), "a consumer of its own");
    }

    /** Issue 41, the late version: v3 before v2 waits durably, and v2 brings it, in order, once each (R5.7). */
    @Test
    void aLateStrictVersionIsAppliedAndTheEventsThatWaitedForItFollowInOrder() throws Exception {
        Inboxed inbox = new Inboxed();
        EventId v3 = EventId.next();
        EventId v4 = EventId.next();
        assertEquals("FIRST", inbox.deliver("c", EventId.next(), 1, Ordering.STRICT));
        assertEquals("WAITING", inbox.deliver("c", v3, 3, Ordering.STRICT), "stored, committed, acknowledged");
        assertEquals("WAITING", inbox.deliver("c", v4, 4, Ordering.STRICT));
        assertEquals("DUPLICATE", inbox.deliver("c", v3, 3, Ordering.STRICT), "a redelivery of a waiting event");
        assertEquals(List.of(1L), inbox.appliedVersions("c"), "nothing applied ahead of version 2");
        assertEquals(List.of("2"), row("SELECT COUNT(*) FROM inbox_waiting WHERE consumer = 'c'"));
        assertEquals("FIRST", inbox.deliver("c", EventId.next(), 2, Ordering.STRICT));
        assertEquals(List.of(1L, 2L, 3L, 4L), inbox.appliedVersions("c"), "in version order, each once");
        assertEquals(List.of("0"), row("SELECT COUNT(*) FROM inbox_waiting WHERE consumer = 'c'"));
        assertEquals(List.of("4"), row("SELECT high_water FROM inbox_high_water WHERE consumer = 'c'"));
        assertEquals("DUPLICATE", inbox.deliver("c", v4, 4, Ordering.STRICT), "applied in its turn, marked");
        assertEquals(List.of(1L, 2L, 3L, 4L), inbox.appliedVersions("c"));
    }

    /** R7.7: a version applied under one id and arriving under another is a fork, parked, never absorbed. */
    @Test
    void aForkIsParkedAsAConflictNamingBothIdsAndNeverAppliedOrAbsorbed() throws Exception {
        Inboxed inbox = new Inboxed();
        EventId applied = EventId.next();
        EventId fork = EventId.next();
        assertEquals("FIRST", inbox.deliver("c", EventId.next(), 1, Ordering.STRICT));
        assertEquals("FIRST", inbox.deliver("c", applied, 2, Ordering.STRICT));
        assertEquals("CONFLICT", inbox.deliver("c", fork, 2, Ordering.STRICT), "a restore's new v2");
        assertEquals(List.of(fork.toString(), applied.toString()), row("SELECT event_id, applied_event_id"
                + " FROM inbox_conflict WHERE consumer = 'c'"));
        assertEquals("DUPLICATE", inbox.deliver("c", fork, 2, Ordering.STRICT), "parked once, whatever comes again");
        assertEquals(List.of(1L, 2L), inbox.appliedVersions("c"), "the fork's change never ran");
        EventId waiting = EventId.next();
        assertEquals("WAITING", inbox.deliver("c", waiting, 4, Ordering.STRICT));
        assertEquals("CONFLICT", inbox.deliver("c", EventId.next(), 4, Ordering.STRICT), "two ids for a waiting version");
        assertEquals("FIRST", inbox.deliver("c", EventId.next(), 3, Ordering.STRICT));
        assertEquals(List.of(1L, 2L, 3L, 4L), inbox.appliedVersions("c"), "the first of the two waited and went on");
    }

    /**
     * R7.7, found by the protocol checker: an independent event applied ahead of its turn holds its version as
     * surely as an applied strict one; a strict event claiming that version under another id, before or after it,
     * is a fork, and never waits forever behind a version the mark has passed.
     */
    @Test
    void aForkAgainstAnIndependentEventAppliedAheadOfItsTurnIsParkedWhicheverArrivesFirst() throws Exception {
        Inboxed inbox = new Inboxed();
        assertEquals("FIRST", inbox.deliver("c", EventId.next(), 1, Ordering.STRICT));
        assertEquals("FIRST", inbox.deliver("c", EventId.next(), 3, Ordering.INDEPENDENT), "ahead of its turn");
        assertEquals("CONFLICT", inbox.deliver("c", EventId.next(), 3, Ordering.STRICT), "v3 is held by the first");
        EventId waiting = EventId.next();
        assertEquals("WAITING", inbox.deliver("c", waiting, 5, Ordering.STRICT));
        assertEquals("CONFLICT", inbox.deliver("c", EventId.next(), 5, Ordering.INDEPENDENT), "v5 waits already");
        assertEquals("FIRST", inbox.deliver("c", EventId.next(), 2, Ordering.STRICT));
        assertEquals("FIRST", inbox.deliver("c", EventId.next(), 4, Ordering.STRICT));
        assertEquals(List.of(1L, 3L, 2L, 4L, 5L), inbox.appliedVersions("c"), "each version once, nothing left behind");
        assertEquals(List.of("0"), row("SELECT COUNT(*) FROM inbox_waiting WHERE consumer = 'c'"));
    }

    /** R5.7: only an operator's audited skip ends a gap without the missing version; a late one is then reported. */
    @Test
    void anOperatorsSkipEndsAGapAndTheSkippedVersionArrivingLateIsReportedNotApplied() throws Exception {
        Inboxed inbox = new Inboxed();
        EventId v2 = EventId.next();
        assertEquals("FIRST", inbox.deliver("c", EventId.next(), 1, Ordering.STRICT));
        assertEquals("WAITING", inbox.deliver("c", EventId.next(), 3, Ordering.STRICT));
        connection.setAutoCommit(false);
        assertThrows(IllegalArgumentException.class, () -> inbox.resequencer().skip("c", "Order", "o-1", 3, "alice",
                "through a waiting event that can be applied"), "a skip never drops an event that can be applied");
        assertEquals(2, inbox.resequencer().skip("c", "Order", "o-1", 2, "alice", "v2 lost upstream, ticket 7").from());
        assertEquals(1, inbox.releaseReady("c"), "v3 goes on");
        inbox.commit();
        assertEquals(List.of(1L, 3L), inbox.appliedVersions("c"));
        assertEquals(List.of("2", "2", "alice"), row("SELECT from_version, to_version, skipped_by FROM inbox_skip"));
        assertEquals("SKIPPED", inbox.deliver("c", v2, 2, Ordering.STRICT));
        assertEquals("DUPLICATE", inbox.deliver("c", v2, 2, Ordering.STRICT));
        assertEquals(List.of(1L, 3L), inbox.appliedVersions("c"), "the skipped version never applied");
    }

    /**
     * R5.7: a successor that fails in its turn rolls back, and the versions before it go on without it, those it
     * waited with included; the failed one is tried again later and goes on once it applies.
     */
    @Test
    void aWaitingEventThatFailsInItsTurnNeverBlocksTheVersionsBeforeIt() throws Exception {
        Inboxed inbox = new Inboxed();
        EventId v4 = EventId.next();
        EventId v2 = EventId.next();
        assertEquals("FIRST", inbox.deliver("c", EventId.next(), 1, Ordering.STRICT));
        assertEquals("WAITING", inbox.deliver("c", EventId.next(), 3, Ordering.STRICT));
        assertEquals("WAITING", inbox.deliver("c", v4, 4, Ordering.STRICT));
        assertEquals("WAITING", inbox.deliver("c", EventId.next(), 5, Ordering.STRICT));
        inbox.poison = v4;
        assertEquals("SuccessorFailed", inbox.deliver("c", v2, 2, Ordering.STRICT), "the whole transaction rolls back");
        assertEquals(List.of(1L), inbox.appliedVersions("c"));
        assertEquals("FIRST", inbox.deliverReleasingBelow("c", v2, 2, 4), "then again, releasing below version 4");
        assertEquals(List.of(1L, 2L, 3L), inbox.appliedVersions("c"), "v3 went on with v2, v4 and v5 wait");
        assertEquals(List.of("2"), row("SELECT COUNT(*) FROM inbox_waiting WHERE consumer = 'c'"));
        inbox.poison = null;
        connection.setAutoCommit(false);
        assertEquals(2, inbox.releaseReady("c"), "v4 and v5 in their turn, later");
        inbox.commit();
        assertEquals(List.of(1L, 2L, 3L, 4L, 5L), inbox.appliedVersions("c"));
    }

    /** R5.7: a long backlog is released a cap at a time, so the missing version's transaction stays short. */
    @Test
    void aLongBacklogOfWaitingEventsIsReleasedACapAtATime() throws Exception {
        Inboxed inbox = new Inboxed();
        int backlog = Resequencer.RELEASE_CAP + 30;
        for (long version = 3; version < 3 + backlog; version++) {
            assertEquals("WAITING", inbox.deliver("c", EventId.next(), version, Ordering.STRICT));
        }
        assertEquals("WAITING", inbox.deliver("c", EventId.next(), 2, Ordering.STRICT), "version 1 is missing");
        assertEquals("FIRST", inbox.deliver("c", EventId.next(), 1, Ordering.STRICT));
        assertEquals(1 + Resequencer.RELEASE_CAP, inbox.appliedVersions("c").size(), "v1 and one cap of them");
        connection.setAutoCommit(false);
        assertEquals(31, inbox.releaseReady("c"), "the rest in the sweep");
        inbox.commit();
        List<Long> applied = inbox.appliedVersions("c");
        assertEquals(backlog + 2, applied.size());
        for (int i = 0; i < applied.size(); i++) {
            assertEquals(i + 1, applied.get(i), "in version order");
        }
    }

    @Test
    void theSideEffectLedgerKeepsItsStates() throws SQLException {
        EventId event = EventId.next();
        String key = event + ":mail";
        assertEquals("NONE", SideEffectRows.begin(connection, "mailer", key, event.value(), "mail", now));
        assertEquals("STARTED", SideEffectRows.begin(connection, "mailer", key, event.value(), "mail", now));
        SideEffectRows.finish(connection, "mailer", key, "SUCCEEDED", "ext-1", now);
        assertEquals("SUCCEEDED", SideEffectRows.begin(connection, "mailer", key, event.value(), "mail", now));
    }

    // --- Cleanup (R4.4) ------------------------------------------------------------------------------------------

    @Test
    void cleanupDeletesOnlyOldDeliveredRowsInBatchesOldestFirst() throws SQLException {
        UUID[] ids = new UUID[5];
        for (int i = 0; i < 5; i++) {
            ids[i] = pending("c-" + i, 1, "T");
            update("UPDATE outbox_event SET state = 'DELIVERED', delivered_at = ? WHERE event_id = ?",
                    now.minusHours(10 - i), ids[i]);
        }
        UUID recent = pending("c-recent", 1, "T");
        update("UPDATE outbox_event SET state = 'DELIVERED', delivered_at = ? WHERE event_id = ?", now, recent);
        UUID stillPending = pending("c-pending", 1, "T");

        OffsetDateTime cutoff = now.minusHours(1);
        assertEquals(2, update(OutboxRows.DELETE_DELIVERED_BATCH, cutoff, cutoff, 2), "one batch of two");
        assertEquals(List.of("0"), row("SELECT COUNT(*) FROM outbox_event WHERE event_id = ?", ids[0]),
                "the oldest went first");
        assertEquals(List.of("DELIVERED"), row("SELECT state FROM outbox_event WHERE event_id = ?", ids[2]));
        assertEquals(3, update(OutboxRows.DELETE_DELIVERED_BATCH, cutoff, cutoff, 10));
        assertEquals(0, update(OutboxRows.DELETE_DELIVERED_BATCH, cutoff, cutoff, 10), "nothing old is left");
        assertEquals(List.of("DELIVERED"), row("SELECT state FROM outbox_event WHERE event_id = ?", recent),
                "a row inside the retention window stays");
        assertEquals(List.of("PENDING"), row("SELECT state FROM outbox_event WHERE event_id = ?", stillPending),
                "an undelivered row is never deleted");
    }

    @Test
    void inboxCleanupDeletesOnlyMarksPastTheirRetention() throws SQLException {
        dialect().markProcessed(connection, "shipping", UUID.randomUUID(), "Order", "a", 1L, now, now.minusMinutes(1));
        dialect().markProcessed(connection, "shipping", UUID.randomUUID(), "Order", "a", 2L, now, now.plusDays(1));
        assertEquals(1, update(InboxMarks.DELETE_PROCESSED_BATCH, now, now, 100));
        assertEquals(0, update(InboxMarks.DELETE_PROCESSED_BATCH, now, now, 100));
    }

    /**
     * Issue 16 item 2: a replay puts a delivered row back to pending while a cleanup batch that already chose it
     * waits for its row lock. The delete must re-check the row it locked, never the choice it made before (R9.3).
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
            CompletableFuture<Integer> deleted = inAnotherThread(() -> {
                try (PreparedStatement delete = cleanup.prepareStatement(OutboxRows.DELETE_DELIVERED_BATCH)) {
                    delete.setObject(1, now.minusDays(7));
                    delete.setObject(2, now.minusDays(7));
                    delete.setInt(3, 10);
                    return delete.executeUpdate();
                }
            });
            Thread.sleep(1_000); // the cleanup statement has chosen its rows and waits for the replay's lock
            assertFalse(deleted.isDone(), "the cleanup batch waits for the replay's row lock (or the case tests nothing)");
            replay.commit();
            assertEquals(0, deleted.get(10, TimeUnit.SECONDS), "cleanup deleted a row a replay had just put back");
        }
        assertEquals(List.of("PENDING"), row("SELECT state FROM outbox_event WHERE event_id = ?", replayed),
                "the replayed event is still there to be sent");
    }

    // --- Replay requesters (R9.4) --------------------------------------------------------------------------------

    @Test
    void aSecondReplayRequestOfThePersonWaitsUntilTheFirstHasCommitted() throws Exception {
        try (Connection first = connect(); Connection second = connect()) {
            first.setAutoCommit(false);
            second.setAutoCommit(false);
            dialect().lockRequester(first, "lead"); // creates the row and locks it, uncommitted
            CompletableFuture<Void> waiting = requestInAnotherThread(second, "lead");
            Thread.sleep(300);
            assertFalse(waiting.isDone(), "the second request of one person must wait while the first is undecided");
            first.commit();
            waiting.get(10, TimeUnit.SECONDS);
            // And again once the person's row exists.
            dialect().lockRequester(first, "lead");
            CompletableFuture<Void> again = requestInAnotherThread(second, "lead");
            Thread.sleep(300);
            assertFalse(again.isDone(), "the person's existing row is locked too");
            first.commit();
            again.get(10, TimeUnit.SECONDS);
        }
    }

    /**
     * Issue 42 item 1: a content change is a request like a replay: stored with the body before and after (a JSON text
     * or a reference, either way), read back exactly, and once executed by its requester alone it counts against the
     * person's approval threshold like a re-send; waiting, or decided by somebody else, it does not.
     */
    @Test
    void aContentChangeIsStoredWithItsRequestAndCountsAgainstTheRequestersThreshold() {
        ReplayRequests requests = new ReplayRequests();
        requests.database = OutboxDataSource.over(connection, dialect());
        OffsetDateTime now = OffsetDateTime.now(java.time.ZoneOffset.UTC).truncatedTo(java.time.temporal.ChronoUnit.MILLIS);
        String person = "changer-" + UUID.randomUUID();
        UUID eventId = UUID.randomUUID();
        UUID byBody = UUID.randomUUID();
        UUID byReference = UUID.randomUUID();
        String before = "{\"note\":\"" + "n".repeat(70_000) + " \u00e9\u20ac\uD83D\uDE00\"}";
        requests.insert(byBody, now, person, "shorten", "fix:" + eventId, List.of(eventId));
        requests.insertContentChange(byBody, new ReplayRequests.ContentChange(eventId, before, null, 1,
                "{\"note\":\"short\"}", null, 2));
        requests.insert(byReference, now, person, "move out", "fix:" + eventId, List.of(eventId));
        requests.insertContentChange(byReference, new ReplayRequests.ContentChange(eventId, null,
                "https://bodies.example/1", 2, null, "https://bodies.example/2", 2));

        assertEquals(new ReplayRequests.ContentChange(eventId, before, null, 1, "{\"note\":\"short\"}", null, 2),
                requests.contentChange(byBody).orElseThrow(), "the change reads back exactly, a 70 KB body included");
        assertEquals(new ReplayRequests.ContentChange(eventId, null, "https://bodies.example/1", 2, null,
                "https://bodies.example/2", 2), requests.contentChange(byReference).orElseThrow());
        assertTrue(requests.contentChange(UUID.randomUUID()).isEmpty(), "a request without a change has none");
        assertEquals(List.of(eventId), requests.events(byBody));

        assertEquals(0, requests.replayedWithoutApproval(person, now.minusMinutes(1)), "waiting requests count nothing");
        assertTrue(requests.decide(byBody, "EXECUTED", person, now));
        assertTrue(requests.decide(byReference, "EXECUTED", "somebody-else", now));
        assertFalse(requests.decide(byBody, "REJECTED", person, now), "a request is decided once");
        assertEquals(1, requests.replayedWithoutApproval(person, now.minusMinutes(1)),
                "the change its requester executed alone counts; the one a second person approved does not");
        assertEquals(0, requests.replayedWithoutApproval(person, now.plusMinutes(1)), "outside the window: nothing");
        requests.forgetContentChange(byBody);
        assertTrue(requests.contentChange(byBody).isEmpty(), "a decided change's bodies are not kept");
        assertTrue(requests.contentChange(byReference).isPresent(), "another request's change stays");
    }

    /**
     * Issue 42 item 1 (R9.4): an approved content change reads the event with its row locked, compares the body with
     * the one it was asked against and replaces it; another change of the event, which reads it the same way, waits
     * until that transaction ends and then reads the changed body, so two people's changes never both pass the
     * comparison. (A bare update behind the lock can deadlock on MariaDB, whose update may lock a secondary index
     * first: every change reads the row locked before it writes.)
     */
    @Test
    void aLockedReadOfAnEventHoldsOffAnotherChangeUntilItsTransactionEnds() throws Exception {
        UUID id = RecordedRow.pending("Order", "a", 1, "T").parked().insert(connection);
        try (Connection first = connect(); Connection second = connect()) {
            first.setAutoCommit(false);
            second.setAutoCommit(false);
            StoredEvents mine = new StoredEvents(OutboxDataSource.over(first, dialect()));
            assertEquals(id, mine.findLocked(id).orElseThrow().eventId());
            StoredEvents theirs = new StoredEvents(OutboxDataSource.over(second, dialect()));
            CompletableFuture<String> change = CompletableFuture.supplyAsync(() -> {
                String seen = theirs.findLocked(id).orElseThrow().payload();
                assertTrue(theirs.fixParked(id, "{\"theirs\":true}", null, 2));
                return seen;
            });
            Thread.sleep(500);
            assertFalse(change.isDone(), "another change of the event waits for the locked read's transaction");
            assertTrue(mine.fixParked(id, "{\"mine\":true}", null, 2));
            first.commit();
            assertEquals("{\"mine\":true}", change.get(10, TimeUnit.SECONDS),
                    "the waiting change goes on once the first transaction ended, and reads the body it left");
            second.commit();
        }
        assertEquals("{\"theirs\":true}", scalar("SELECT payload FROM outbox_event WHERE event_id = ?", id));
    }

    @Test
    void anotherPersonsReplayRequestDoesNotWait() throws Exception {
        try (Connection first = connect(); Connection second = connect()) {
            first.setAutoCommit(false);
            second.setAutoCommit(false);
            dialect().lockRequester(first, "lead");
            CompletableFuture<Void> other = requestInAnotherThread(second, "operator");
            other.get(5, TimeUnit.SECONDS);
            first.commit();
        }
    }

    // --- The datasource's part in the caller's transaction (R1.1) --------------------------------------------------

    /**
     * Issue 42 item 3: a datasource whose connections commit and roll back with the transaction, as an enlisted one
     * does, passes the start-up probe, and the probe leaves none of its marks.
     */
    @Test
    void theTransactionJoinProbePassesADataSourceWhoseStatementsFollowTheTransaction() throws SQLException {
        TransactionJoin.verify(dialect(), transactions(true, true), "jdbc/outbox");
        assertEquals(0, probeMarks(), "the probe leaves no row behind");
    }

    /**
     * Issue 42 item 3: a datasource the server does not enlist (Liberty transactional="false", WildFly jta=false)
     * commits each statement on its own, whatever the transaction does; the probe refuses it, naming the setting.
     */
    @Test
    void theTransactionJoinProbeRefusesADataSourceWhoseStatementsCommitAlone() throws SQLException {
        NotInTransactionException refused = assertThrows(NotInTransactionException.class,
                () -> TransactionJoin.verify(dialect(), transactions(false, true), "jdbc/alone"),
                "a row written in a rolled-back transaction stayed, and the probe did not see it");
        assertTrue(refused.getMessage().contains("jdbc/alone") && refused.getMessage().contains("outbox.datasource")
                && refused.getMessage().contains("rolled back"), refused.getMessage());
        assertEquals(0, probeMarks(), "the probe deletes the mark that committed alone");
    }

    /** Issue 42 item 3: a datasource whose statements never commit (a pool nobody commits) is refused too. */
    @Test
    void theTransactionJoinProbeRefusesADataSourceWhoseStatementsNeverCommit() throws SQLException {
        NotInTransactionException refused = assertThrows(NotInTransactionException.class,
                () -> TransactionJoin.verify(dialect(), transactions(true, false), "jdbc/never"),
                "a row written in a committed transaction is missing, and the probe did not see it");
        assertTrue(refused.getMessage().contains("jdbc/never") && refused.getMessage().contains("is not there"),
                refused.getMessage());
        assertEquals(0, probeMarks(), "nothing of the probe's is left");
    }

    /**
     * Transactions over connections of their own: {@code followsRollback} false is a connection that commits each
     * statement alone (the transaction's rollback never reaches it); {@code commits} false one that is never
     * committed.
     */
    private TransactionJoin.Transactions transactions(boolean followsRollback, boolean commits) {
        return new TransactionJoin.Transactions() {
            @Override
            public void rolledBack(OutboxDataSource.Work<?> work) throws SQLException {
                try (Connection own = connect()) {
                    own.setAutoCommit(!followsRollback);
                    work.on(own);
                    if (followsRollback) {
                        own.rollback();
                    }
                }
            }

            @Override
            public <T> T committed(OutboxDataSource.Work<T> work) throws SQLException {
                try (Connection own = connect()) {
                    own.setAutoCommit(false);
                    T answer = work.on(own);
                    if (commits) {
                        own.commit();
                    } else {
                        own.rollback();
                    }
                    return answer;
                }
            }
        };
    }

    private int probeMarks() throws SQLException {
        try (PreparedStatement count = connection.prepareStatement("SELECT COUNT(*) FROM processed_event"
                + " WHERE consumer = ?")) {
            count.setString(1, TransactionJoin.PROBE_CONSUMER);
            try (ResultSet rs = count.executeQuery()) {
                rs.next();
                return rs.getInt(1);
            }
        }
    }

    // --- One content per event id across brokers (R6.6) -------------------------------------------------------------

    /**
     * Issue 42 item 2: the transports that took an event are added to its row once each (a set written by CONCAT,
     * COALESCE and LIKE, which the three databases run alike), and a fix of its body is refused from then on.
     */
    @Test
    void theTransportsThatTookAnEventAreRecordedOnceEachAndKeepItsBodyFromARepair() throws SQLException {
        UUID id = RecordedRow.pending("Order", "a", 1, "T").parked().insert(connection);
        ConfirmRows.accepted(connection, List.of(new ConfirmRows.Accepted(id, "kafka"),
                new ConfirmRows.Accepted(id, "jms")));
        ConfirmRows.accepted(connection, List.of(new ConfirmRows.Accepted(id, "kafka")));
        StoredEvents events = new StoredEvents(OutboxDataSource.over(connection, dialect()));
        assertEquals(Set.of("jms", "kafka"), events.find(id).orElseThrow().acceptedBy());
        assertEquals(",kafka,jms,", scalar("SELECT accepted_by FROM outbox_event WHERE event_id = ?", id),
                "each transport once");
        assertFalse(events.fixParked(id, "{\"changed\":true}", null, 2), "a broker took it: its body stays");
    }

    // --- Schema changes beside running writers (R8.4) -------------------------------------------------------------

    /**
     * Issue 42 item 4: in a rolling upgrade the new release's schema script meets an open transaction on its table.
     * Bounded, the ALTER TABLE gives up, and an insert queued behind it goes on while that transaction is still open,
     * instead of waiting for it to end (PostgreSQL queues later lock requests behind a waiting one; MariaDB's metadata
     * locks do the same).
     */
    @Test
    void aSchemaChangeBehindAnOpenTransactionGivesUpSoWritesDoNotQueueBehindIt() throws Exception {
        assumeTrue(!"h2".equals(dialect().name()), "the embedded H2 (one server) waits as it always did");
        SqlScript latest = withoutTheLatestColumn();
        try (Connection holder = connect(); Connection schema = connect()) {
            holdOutboxEvent(holder);
            dialect().limitSchemaLockWait(schema, Duration.ofMillis(2000));
            long[] gaveUpAt = new long[1];
            CompletableFuture<SQLException> change = inAnotherThread(() -> {
                try {
                    latest.run(schema);
                    return null;
                } catch (SQLException e) {
                    gaveUpAt[0] = System.nanoTime();
                    return e;
                }
            });
            Thread.sleep(500); // the ALTER TABLE waits for the holder
            CompletableFuture<Long> write = inAnotherThread(() -> {
                pending("queued", 1, "T");
                return System.nanoTime();
            });
            SQLException gaveUp = change.get(30, TimeUnit.SECONDS);
            assertTrue(gaveUp != null && Causes.isLockWaitTimeout(gaveUp), "the schema change gave up waiting for the"
                    + " open transaction's lock, with a lock wait timeout: " + gaveUp);
            long written = write.get(10, TimeUnit.SECONDS); // still with the transaction open
            assertTrue(written >= gaveUpAt[0] - TimeUnit.MILLISECONDS.toNanos(100), "the insert went on only once the"
                    + " schema change gave up: it had queued behind the ALTER TABLE, which this case is about (an"
                    + " insert that ran first proves nothing); it ended " + (gaveUpAt[0] - written) / 1_000_000
                    + " ms before");
            holder.rollback();
            dialect().unlimitSchemaLockWait(schema);
            latest.run(schema);
        }
    }

    /**
     * Issue 42 item 4: the start tries the schema change again after each give-up (OUTBOX-1004) and applies it once
     * the open transaction ends; with the budget spent first, it refuses naming the script and both settings.
     */
    @Test
    void aSchemaChangeTriesAgainUntilTheOpenTransactionEndsAndRefusesOnceItsBudgetIsSpent() throws Exception {
        assumeTrue(!"h2".equals(dialect().name()), "the embedded H2 (one server) waits as it always did");
        SqlScript latest = withoutTheLatestColumn();
        List<Long> pauses = new java.util.concurrent.CopyOnWriteArrayList<>();
        try (Connection holder = connect(); Connection schema = connect()) {
            holdOutboxEvent(holder);
            CompletableFuture<Void> spent = inAnotherThread(() -> {
                new SchemaChange(dialect(), Duration.ofMillis(300), Duration.ofMillis(2500), pauses::add)
                        .apply(schema, latest);
                return null;
            });
            // An unbounded wait would time out here instead of ending in the refusal.
            ExecutionException failed = assertThrows(ExecutionException.class, () -> spent.get(30, TimeUnit.SECONDS),
                    "the budget is spent while the transaction stays open");
            Throwable refused = failed.getCause();
            assertTrue(refused instanceof IllegalStateException && refused.getMessage().contains(latest.resource())
                    && refused.getMessage().contains("outbox.schema.lock-budget")
                    && refused.getMessage().contains("outbox.schema.lock-wait-ms"), String.valueOf(refused));
            assertFalse(pauses.isEmpty(), "it tried more than once before refusing");

            pauses.clear();
            CompletableFuture<Void> applied = inAnotherThread(() -> {
                new SchemaChange(dialect(), Duration.ofMillis(300), Duration.ofSeconds(60), millis -> {
                    pauses.add(millis);
                    Thread.sleep(millis);
                }).apply(schema, latest);
                return null;
            });
            Thread.sleep(2500);
            assertFalse(applied.isDone(), "the schema change waits while the transaction is open");
            holder.rollback();
            try {
                applied.get(30, TimeUnit.SECONDS);
            } catch (ExecutionException e) {
                throw new AssertionError("the schema change failed instead of applying once the transaction ended",
                        e.getCause());
            }
            assertFalse(pauses.isEmpty(), "it gave up at least once and tried again");
        }
        try (PreparedStatement probe = connection.prepareStatement("SELECT " + droppedColumn
                + " FROM outbox_event WHERE 1 = 0")) {
            probe.executeQuery().close(); // the column is there again
        }
    }

    /** The column {@link #withoutTheLatestColumn} dropped. */
    private String droppedColumn;

    /**
     * The latest schema script that adds a column to outbox_event (an ALTER TABLE that waits for its lock), with that
     * column dropped first so that it has work to do. Scripts are idempotent, so running it alone again is safe.
     */
    private SqlScript withoutTheLatestColumn() throws SQLException {
        List<String> scripts = dialect().schemaScripts();
        java.util.regex.Pattern addsAColumn = java.util.regex.Pattern.compile(
                "^ALTER TABLE outbox_event ADD COLUMN IF NOT EXISTS (\\w+)");
        for (int i = scripts.size() - 1; i >= 0; i--) {
            SqlScript script = SqlScript.load(scripts.get(i), getClass().getClassLoader());
            java.util.regex.Matcher column = addsAColumn.matcher(script.statements().get(0));
            if (column.find()) {
                droppedColumn = column.group(1);
                try (var drop = connection.createStatement()) {
                    drop.execute("ALTER TABLE outbox_event DROP COLUMN " + droppedColumn);
                }
                return script;
            }
        }
        throw new AssertionError("these cases need a schema script that begins by adding a column to outbox_event");
    }

    /** A transaction that has read outbox_event and stays open: its lock keeps an ALTER TABLE waiting. */
    private static void holdOutboxEvent(Connection holder) throws SQLException {
        holder.setAutoCommit(false);
        try (PreparedStatement read = holder.prepareStatement("SELECT COUNT(*) FROM outbox_event");
             ResultSet rs = read.executeQuery()) {
            rs.next();
        }
    }

    // --- Helpers -------------------------------------------------------------------------------------------------

    private String scalar(String sql, Object value) throws SQLException {
        try (PreparedStatement select = connection.prepareStatement(sql)) {
            select.setObject(1, value);
            try (ResultSet rs = select.executeQuery()) {
                assertTrue(rs.next(), "no row for " + value);
                return rs.getString(1);
            }
        }
    }

    /** SQL work that may throw, for {@link #inAnotherThread}. */
    @FunctionalInterface
    protected interface SqlCall<T> {
        T call() throws SQLException;
    }

    /** Runs a second transaction's step on another thread, so this one can see whether it waits. */
    protected static <T> CompletableFuture<T> inAnotherThread(SqlCall<T> step) {
        return CompletableFuture.supplyAsync(() -> {
            try {
                return step.call();
            } catch (SQLException e) {
                throw new IllegalStateException(e);
            }
        });
    }

    /** One person's replay request on {@code connection}, on another thread: lock the requester, then commit. */
    private CompletableFuture<Void> requestInAnotherThread(Connection connection, String requester) {
        return inAnotherThread(() -> {
            dialect().lockRequester(connection, requester);
            connection.commit();
            return null;
        });
    }

    protected UUID pending(String aggregateId, long version, String type) throws SQLException {
        return RecordedRow.pending("Order", aggregateId, version, type)
                .recordedAt(now.minusSeconds(10)).dueAt(now.minusSeconds(10)).insert(connection);
    }

    private static ClaimRequest request(String claimer, int limit, Set<String> independent) {
        return new ClaimRequest(claimer, limit, Duration.ofSeconds(30), true, independent);
    }

    private List<OutboundEvent> claim(String claimer, int limit, Set<String> independent) throws SQLException {
        return dialect().claim(connection, request(claimer, limit, independent));
    }

    /** The claimer's lease on a row has run out: the row is due again for a takeover (R4.3). */
    private void leaseRunsOut(UUID id) throws SQLException {
        update("UPDATE outbox_event SET next_attempt_at = ? WHERE event_id = ?", now.minusSeconds(1), id);
    }

    protected int update(String sql, Object... values) throws SQLException {
        try (PreparedStatement statement = connection.prepareStatement(sql)) {
            for (int i = 0; i < values.length; i++) {
                statement.setObject(i + 1, values[i]);
            }
            return statement.executeUpdate();
        }
    }

    /** One row's columns, as strings (null stays null), for assertions that read well. */
    protected List<String> row(String sql, Object... values) throws SQLException {
        try (PreparedStatement query = connection.prepareStatement(sql)) {
            for (int i = 0; i < values.length; i++) {
                query.setObject(i + 1, values[i]);
            }
            try (ResultSet rs = query.executeQuery()) {
                assertTrue(rs.next(), "a row for " + sql);
                List<String> columns = new ArrayList<>();
                for (int i = 1; i <= rs.getMetaData().getColumnCount(); i++) {
                    columns.add(rs.getString(i));
                }
                return columns;
            }
        }
    }

    private static List<String> versions(List<OutboundEvent> claimed) {
        return claimed.stream().map(e -> e.event().aggregateId() + "@" + e.event().aggregateVersion()).toList();
    }

    private static List<String> of(List<String> versions, String aggregateId) {
        return versions.stream().filter(v -> v.startsWith(aggregateId + "@")).toList();
    }

    /**
     * A consumer of aggregate Order/o-1 behind the product's {@link Resequencer}, one delivery per transaction on
     * the test's connection; its effects count only once their transaction committed.
     */
    private final class Inboxed {
        private final List<String> committed = new ArrayList<>();
        private final List<String> pending = new ArrayList<>();
        EventId poison;

        Resequencer resequencer() {
            return new Resequencer(new InboxStore(connection, dialect()), Duration.ofDays(30));
        }

        void apply(Received received) {
            if (received.event().eventId().equals(poison)) {
                throw new IllegalStateException("poison");
            }
            pending.add(received.event().aggregateVersion() + "");
        }

        String deliver(String consumer, EventId id, long version, Ordering ordering) throws Exception {
            return run(consumer, id, version, ordering, Resequencer.RELEASE_ALL);
        }

        String deliverReleasingBelow(String consumer, EventId id, long version, long releaseBelow) throws Exception {
            return run(consumer, id, version, Ordering.STRICT, releaseBelow);
        }

        int releaseReady(String consumer) throws SQLException {
            int released = 0;
            for (String[] aggregate : resequencer().ready(consumer, 10)) {
                released += resequencer().releaseReady(consumer, aggregate[0], aggregate[1], this::apply,
                        Resequencer.RELEASE_ALL).released().size();
            }
            return released;
        }

        private String run(String consumer, EventId id, long version, Ordering ordering, long releaseBelow)
                throws Exception {
            connection.setAutoCommit(false);
            try {
                Received received = new Received(new InboxedEvent(id, "OrderAmended", "Order", "o-1", version, 1,
                        ordering, "{\"v\":" + version + "}"), "q@" + version);
                String receipt = resequencer().receive(consumer, received,
                        turn -> apply(turn), releaseBelow).receipt().name();
                pending.replaceAll(v -> consumer + "/" + v);
                commit();
                return receipt;
            } catch (Resequencer.SuccessorFailed e) {
                pending.clear();
                connection.rollback();
                connection.setAutoCommit(true);
                return "SuccessorFailed";
            }
        }

        void commit() throws SQLException {
            connection.commit();
            connection.setAutoCommit(true);
            pending.replaceAll(v -> v.contains("/") ? v : "c/" + v);
            committed.addAll(pending);
            pending.clear();
        }

        List<Long> appliedVersions(String consumer) {
            return committed.stream().filter(v -> v.startsWith(consumer + "/"))
                    .map(v -> Long.parseLong(v.substring(consumer.length() + 1))).toList();
        }
    }
}
