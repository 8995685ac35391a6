package dev.outbox.internal.persistence;

import dev.outbox.spi.OutboundEvent;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The publisher's SQL on a real (in-memory) H2: claim, lease, confirm conditional on the claim, and the
 * ordering policy's filter. The PostgreSQL statements run on a real PostgreSQL in itests.
 */
class H2ClaimTest {

    private final Dialect dialect = new H2Dialect();
    private final OffsetDateTime now = OffsetDateTime.now(ZoneOffset.UTC);
    private Connection connection;

    @BeforeEach
    void schema() throws SQLException {
        connection = FreshH2.open();
    }

    @AfterEach
    void close() throws SQLException {
        connection.close();
    }

    private UUID pending(String aggregateId, long version, String type) throws SQLException {
        return RecordedRow.pending("Order", aggregateId, version, type)
                .recordedAt(now.minusSeconds(10)).dueAt(now.minusSeconds(10)).insert(connection);
    }

    private List<OutboundEvent> claim(String claimer, int limit, boolean strict, Set<String> exceptions)
            throws SQLException {
        return dialect.claim(connection, new ClaimRequest(claimer, limit, Duration.ofSeconds(30), strict, exceptions));
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

    private String state(UUID id) throws SQLException {
        try (PreparedStatement select = connection.prepareStatement("SELECT state FROM outbox_event WHERE event_id = ?")) {
            select.setObject(1, id);
            try (ResultSet rs = select.executeQuery()) {
                rs.next();
                return rs.getString(1);
            }
        }
    }

    @Test
    void aClaimLeasesDueRowsOnceAndCountsTheAttempt() throws SQLException {
        pending("a", 1, "T");
        pending("b", 1, "T");
        List<OutboundEvent> first = claim("p1", 10, true, Set.of());
        assertEquals(2, first.size());
        assertTrue(first.stream().allMatch(e -> e.attempt() == 1 && e.leaseVersion() == 1), first.toString());
        assertEquals(List.of(), claim("p2", 10, true, Set.of()), "leased rows are not due for another claimer");
    }

    @Test
    void theBatchSizeBoundsAClaim() throws SQLException {
        for (int i = 0; i < 5; i++) {
            pending("agg-" + i, 1, "T");
        }
        assertEquals(3, claim("p1", 3, true, Set.of()).size());
        assertEquals(2, claim("p2", 3, true, Set.of()).size());
    }

    @Test
    void theConfirmOnlyCountsForTheClaimThatIsStillCurrent() throws SQLException {
        UUID id = pending("a", 1, "T");
        OutboundEvent stale = claim("p1", 10, true, Set.of()).get(0);
        // p1's lease runs out; p2 takes the row over (R4.3).
        leaseRunsOut(id);
        OutboundEvent current = claim("p2", 10, true, Set.of()).get(0);
        assertEquals(stale.id(), current.id(), "the takeover sends the same event id");

        int lateConfirm = update(OutboxRows.CONFIRM, now, "m-1", null, null, id, "p1", stale.leaseVersion());
        assertEquals(0, lateConfirm, "a lost lease never overwrites the new claimer's result (R4.2)");
        assertEquals("PENDING", state(id));
        assertEquals(1, update(OutboxRows.CONFIRM, now, "m-2", null, null, id, "p2", current.leaseVersion()));
        assertEquals("DELIVERED", state(id));
    }

    @Test
    void theBatchConfirmWritesOnlyTheRowsWhoseClaimIsCurrent() throws SQLException {
        UUID taken = pending("a", 1, "T");
        UUID kept = pending("b", 1, "T");
        List<OutboundEvent> stale = claim("p1", 10, true, Set.of());
        leaseRunsOut(taken);
        OutboundEvent takenOver = claim("p2", 10, true, Set.of()).get(0);
        assertEquals(taken, takenOver.id().value(), "p2 took over the row whose lease ran out");

        Set<UUID> confirmed = dialect.confirm(connection, "p1", now, stale.stream()
                .map(e -> new Delivery(e.id().value(), e.leaseVersion(), "m-1", null, null)).toList());
        assertEquals(Set.of(kept), confirmed, "p1 confirms its current claim only; the taken-over row is p2's (R4.2)");
        assertEquals("DELIVERED", state(kept));
        assertEquals("PENDING", state(taken));
        assertEquals(Set.of(taken), dialect.confirm(connection, "p2", now,
                List.of(new Delivery(taken, takenOver.leaseVersion(), "m-2", 3, 42L))));
        assertEquals("DELIVERED", state(taken));
    }

    @Test
    void theBatchConfirmRefusesAnEarlierLeaseOfTheSameClaimer() throws SQLException {
        UUID id = pending("a", 1, "T");
        OutboundEvent first = claim("p1", 10, true, Set.of()).get(0);
        leaseRunsOut(id);
        // The same claimer id takes its own expired row again (a second worker of one server does).
        OutboundEvent again = claim("p1", 10, true, Set.of()).get(0);
        assertEquals(Set.of(), dialect.confirm(connection, "p1", now, List.of(new Delivery(id,
                first.leaseVersion(), "m-old", null, null))), "the lease version fences an earlier claim (R4.2)");
        assertEquals(Set.of(id), dialect.confirm(connection, "p1", now, List.of(new Delivery(id,
                again.leaseVersion(), "m-new", null, null))));
    }

    @Test
    void aStrictEventWaitsForEveryEarlierVersionOfItsAggregate() throws SQLException {
        UUID v1 = pending("a", 1, "T");
        List<OutboundEvent> first = claim("p1", 10, true, Set.of());
        assertEquals(List.of("a@1"), versions(first));
        pending("a", 2, "T");
        pending("b", 1, "T");
        assertEquals(List.of("b@1"), versions(claim("p2", 10, true, Set.of())),
                "a@2 waits while another claim holds a@1");
        update(OutboxRows.PARK, "MessageTooLarge", v1, "p1", first.get(0).leaseVersion());
        update("UPDATE outbox_event SET next_attempt_at = ? WHERE aggregate_id = 'a'", now.minusSeconds(1));
        assertEquals(List.of(), claim("p1", 10, true, Set.of()), "a parked a@1 blocks a@2 (R4.6)");
    }

    private static List<String> versions(List<OutboundEvent> claimed) {
        return claimed.stream().map(e -> e.event().aggregateId() + "@" + e.event().aggregateVersion()).toList();
    }

    private static List<String> of(List<String> versions, String aggregateId) {
        return versions.stream().filter(v -> v.startsWith(aggregateId + "@")).toList();
    }

    /** Issue 16 item 10: a hot aggregate drains a run of versions per claim, not one per round trip. */
    @Test
    void aClaimTakesAContiguousRunOfAStrictAggregatesDueVersions() throws SQLException {
        for (int v = 1; v <= 5; v++) {
            pending("hot", v, "T");
        }
        pending("cold", 1, "T");
        List<String> claimed = versions(claim("p1", 10, true, Set.of()));
        assertEquals(List.of("hot@1", "hot@2", "hot@3", "hot@4", "hot@5"), of(claimed, "hot"),
                "every due version of a strict aggregate, in version order: " + claimed);
        assertEquals(List.of("cold@1"), of(claimed, "cold"), "and the other aggregates' heads: " + claimed);
    }

    /**
     * A run ends at the batch limit and at the first version that is not pending and due: a version in backoff
     * or parked holds the ones after it back, as it does across claims (R4.6).
     */
    @Test
    void aRunStopsAtTheBatchLimitAndAtTheFirstVersionThatIsNotDue() throws SQLException {
        for (int v = 1; v <= 4; v++) {
            pending("a", v, "T");
        }
        update("UPDATE outbox_event SET next_attempt_at = ? WHERE aggregate_id = 'a' AND aggregate_version = 3",
                now.plusSeconds(60));
        assertEquals(List.of("a@1", "a@2"), versions(claim("p1", 10, true, Set.of())), "a@3 waits for its backoff,"
                + " and a@4 behind it");
        for (int v = 1; v <= 3; v++) {
            pending("b", v, "T");
        }
        assertEquals(List.of("b@1", "b@2"), versions(claim("p2", 2, true, Set.of())), "the limit cuts the run");
        assertEquals(List.of(), claim("p3", 10, true, Set.of()), "b@3 waits while b@2 is claimed");
    }

    /**
     * An independent version in the claim (a candidate of its own) does not end the run; StrictRuns holds the strict
     * version after it until it is delivered. One another claim holds ends the run: the versions after it wait.
     */
    @Test
    void aRunGoesOnPastAnIndependentVersionOfTheSameClaimAndStopsAtOneLeasedElsewhere() throws SQLException {
        pending("a", 1, "Placed");
        UUID noted = pending("a", 2, "Noted");
        pending("a", 3, "Placed");
        assertEquals(List.of("a@1", "a@2", "a@3"), versions(claim("p1", 10, true, Set.of("Noted"))).stream()
                .sorted().toList());
        pending("b", 1, "Placed");
        pending("b", 2, "Noted");
        pending("b", 3, "Placed");
        update("UPDATE outbox_event SET next_attempt_at = ? WHERE aggregate_id = 'b' AND aggregate_version = 2",
                now.minusSeconds(60));
        assertEquals(List.of("b@2"), versions(claim("p2", 1, true, Set.of("Noted"))), "Noted@2 came due first");
        assertEquals(List.of("b@1"), versions(claim("p3", 10, true, Set.of("Noted"))),
                "b@3 waits behind b@2, which p2 holds");
    }

    /** A version held back behind its run, or left when the lease ran short, costs no attempt and stays due. */
    @Test
    void anEventThatWasNeverSentGetsItsAttemptBackAndStaysDue() throws SQLException {
        UUID id = pending("a", 1, "T");
        OutboundEvent claimed = claim("p1", 10, true, Set.of()).get(0);
        assertEquals(1, update(OutboxRows.RETRY_NOT_SENT, now.minusSeconds(1), id, "p1", claimed.leaseVersion()));
        OutboundEvent again = claim("p2", 10, true, Set.of()).get(0);
        assertEquals(1, again.attempt(), "the first real attempt is attempt 1");
    }

    @Test
    void anIndependentEventDoesNotWaitForEarlierVersions() throws SQLException {
        UUID v1 = pending("a", 1, "Placed");
        pending("a", 2, "Noted");
        List<OutboundEvent> claimed = claim("p1", 10, true, Set.of("Noted"));
        assertEquals(List.of(1L, 2L), claimed.stream().map(e -> e.event().aggregateVersion()).toList(),
                "Noted is independent: claimed while Placed@1 is still undelivered (R4.6)");
        update(OutboxRows.PARK, "MessageTooLarge", v1, "p1", claimed.get(0).leaseVersion());
        pending("a", 3, "Noted");
        assertEquals(List.of(3L), claim("p1", 10, true, Set.of("Noted")).stream()
                .map(e -> e.event().aggregateVersion()).toList(), "and goes on past a parked one (R7.5)");
        pending("a", 4, "Placed");
        assertEquals(List.of(), claim("p1", 10, true, Set.of("Noted")), "a strict Placed@4 stays blocked");
    }

    @Test
    void aRetryMakesTheRowDueAgainAtItsBackoffTime() throws SQLException {
        UUID id = pending("a", 1, "T");
        OutboundEvent claimed = claim("p1", 10, true, Set.of()).get(0);
        assertEquals(1, update(OutboxRows.RETRY_LATER, now.plusSeconds(60), "TransientFailure", id, "p1",
                claimed.leaseVersion()));
        assertEquals(List.of(), claim("p1", 10, true, Set.of()), "not due before the backoff ends");
        leaseRunsOut(id);
        assertEquals(2, claim("p1", 10, true, Set.of()).get(0).attempt(), "the same row, attempt 2");
    }

    @Test
    void theInboxMarksAnEventOncePerConsumer() throws SQLException {
        UUID event = UUID.randomUUID();
        assertTrue(dialect.markProcessed(connection, "shipping", event, "Order", "a", 1L, now, now.plusDays(30)));
        assertEquals(false, dialect.markProcessed(connection, "shipping", event, "Order", "a", 1L, now, now.plusDays(30)));
        assertTrue(dialect.markProcessed(connection, "invoicing", event, "Order", "a", 1L, now, now.plusDays(30)));
    }

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

        assertEquals(2, update(OutboxRows.DELETE_DELIVERED_BATCH, now.minusHours(1), now.minusHours(1), 2), "one batch of two");
        assertThrows(SQLException.class, () -> state(ids[0]), "the oldest went first");
        assertEquals("DELIVERED", state(ids[2]));
        assertEquals(3, update(OutboxRows.DELETE_DELIVERED_BATCH, now.minusHours(1), now.minusHours(1), 10));
        assertEquals(0, update(OutboxRows.DELETE_DELIVERED_BATCH, now.minusHours(1), now.minusHours(1), 10), "nothing old is left");
        assertEquals("DELIVERED", state(recent), "a row inside the retention window stays");
        assertEquals("PENDING", state(stillPending), "an undelivered row is never deleted (R4.4)");
    }

    @Test
    void inboxCleanupDeletesOnlyMarksPastTheirRetention() throws SQLException {
        dialect.markProcessed(connection, "shipping", UUID.randomUUID(), "Order", "a", 1L, now, now.minusMinutes(1));
        dialect.markProcessed(connection, "shipping", UUID.randomUUID(), "Order", "a", 2L, now, now.plusDays(1));
        assertEquals(1, update(InboxMarks.DELETE_PROCESSED_BATCH, now, now, 100));
        assertEquals(0, update(InboxMarks.DELETE_PROCESSED_BATCH, now, now, 100));
    }

    /**
     * Issue 16 item 2: a replay puts a delivered row back to pending while a cleanup batch that already chose it
     * waits for its row lock. The delete must re-check the row it locked, never the choice it made before.
     */
    @Test
    void cleanupNeverDeletesARowThatAReplayPutBackToPendingMeanwhile() throws Exception {
        UUID replayed = pending("r", 1, "T");
        update("UPDATE outbox_event SET state = 'DELIVERED', delivered_at = ? WHERE event_id = ?", now.minusDays(9),
                replayed);
        try (Connection replay = DriverManager.getConnection(connection.getMetaData().getURL(), "sa", "")) {
            replay.setAutoCommit(false);
            try (PreparedStatement back = replay.prepareStatement(OutboxRows.REPLAY_ONE)) {
                back.setObject(1, now);
                back.setObject(2, replayed);
                assertEquals(1, back.executeUpdate(), "the replay holds the row, not yet committed");
            }
            update("SET LOCK_TIMEOUT 10000");
            CompletableFuture<Integer> cleanup = CompletableFuture.supplyAsync(() -> {
                try {
                    return update(OutboxRows.DELETE_DELIVERED_BATCH, now.minusDays(7), now.minusDays(7), 10);
                } catch (SQLException e) {
                    throw new IllegalStateException(e);
                }
            });
            Thread.sleep(500); // the cleanup statement has chosen its rows and waits for the replay's lock
            replay.commit();
            assertEquals(0, cleanup.get(10, TimeUnit.SECONDS), "cleanup deleted a row a replay had just put back");
        }
        assertEquals("PENDING", state(replayed), "the replayed event is still there to be sent (R9.3)");
    }

    /**
     * Issue 16 item 6: a claim carries no clock of the claimer's (a server 40 s ahead used to take every live lease
     * of the others): the lease ends the lease's length after the database's own time.
     */
    @Test
    void aLeaseRunsOnTheDatabasesClock() throws SQLException {
        UUID id = pending("a", 1, "T");
        assertEquals(1, claim("p1", 10, true, Set.of()).size());
        try (PreparedStatement select = connection.prepareStatement("SELECT lease_until, CURRENT_TIMESTAMP"
                + " FROM outbox_event WHERE event_id = ?")) {
            select.setObject(1, id);
            try (ResultSet rs = select.executeQuery()) {
                rs.next();
                Duration left = Duration.between(rs.getObject(2, OffsetDateTime.class), rs.getObject(1, OffsetDateTime.class));
                assertTrue(left.compareTo(Duration.ofSeconds(28)) > 0 && left.compareTo(Duration.ofSeconds(30)) <= 0,
                        "30 s of lease by the database's clock, left: " + left);
            }
        }
        assertEquals(List.of(), claim("p2", 10, true, Set.of()), "a live lease is not due for another claimer");
    }
}
