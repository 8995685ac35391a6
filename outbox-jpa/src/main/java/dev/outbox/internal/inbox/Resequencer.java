package dev.outbox.internal.inbox;

import dev.outbox.EventId;
import dev.outbox.Inbox;
import dev.outbox.InboxedEvent;
import dev.outbox.Ordering;
import dev.outbox.internal.persistence.InboxStore;
import dev.outbox.internal.persistence.InboxStore.WaitingRow;

import java.sql.SQLException;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The inbox's protocol for one received event, in the consumer's transaction (R5.1, R5.3, R5.7, R7.7), in plain
 * Java over {@link InboxStore}: the consumer servers, the tests and the protocol checker all run this code.
 *
 * <ul>
 *   <li>The next version of an aggregate (or an independent type's) is marked and applied; then every event that
 *       waited for it is applied after it, in version order, in the same transaction, each marked as it goes.</li>
 *   <li>A strict event whose earlier versions are missing waits in {@code inbox_waiting}, written in this
 *       transaction; its message can be acknowledged. No thread sleeps and no timer ever applies it early.</li>
 *   <li>An event at or below the high-water mark is a duplicate when its id was marked, a late version an operator
 *       skipped (recorded, reported, not applied), or else a fork: another event claims a version the consumer
 *       applied. A fork is parked as a conflict naming both ids, never absorbed, never applied.</li>
 * </ul>
 *
 * The high-water row is locked first, so one aggregate's deliveries to one consumer are decided one at a time.
 */
public final class Resequencer {

    /** A consumer's business change, for the event just received or for one that waited for its turn. */
    @FunctionalInterface
    public interface Change {
        void apply(Received received) throws Exception;
    }

    /**
     * The most waiting events one transaction applies after the version they waited for: a long backlog goes on in
     * the consumer's release sweep, a cap at a time, so the missing version's transaction never outgrows its
     * timeout (R5.7).
     */
    public static final int RELEASE_CAP = 100;

    /** Release every waiting event that is next, up to {@link #RELEASE_CAP}. */
    public static final long RELEASE_ALL = Long.MAX_VALUE;

    /**
     * What the inbox did with one received event, and which waiting events it applied after it; {@code more} when
     * the cap stopped the release with events still ready.
     */
    public record Result(Inbox.Receipt receipt, List<Received> released, boolean more) {
        static Result of(Inbox.Receipt receipt) {
            return new Result(receipt, List.of(), false);
        }
    }

    /** An operator's skip: the versions passed over and the waiting events dropped with them (failed ones only). */
    public record Skip(String aggregate, long from, long through, List<EventId> dropped) {
    }

    /**
     * The change of a waiting event failed when its turn came. Thrown through the transaction, which rolls back
     * whole; the caller applies the received event again releasing only the versions below the failed one, and
     * records the failure on the failed one, so a poison successor never blocks the versions before it.
     */
    public static final class SuccessorFailed extends RuntimeException {
        private final Received successor;

        SuccessorFailed(Received successor, Throwable cause) {
            super("the change of " + successor.event().describe() + ", applied in its turn, failed", cause);
            this.successor = successor;
        }

        public Received successor() {
            return successor;
        }
    }

    private final InboxStore store;
    private final Duration retention;
    private final Set<String> advisoryTypes;
    private final Map<String, Set<String>> receives;

    /** @param retention how long a mark is kept ({@code outbox.inbox.retention}, R5.6) */
    public Resequencer(InboxStore store, Duration retention) {
        this(store, retention, Set.of());
    }

    /** With the event types whose order is only advisory at this consumer ({@code outbox.inbox.advisory-order}). */
    public Resequencer(InboxStore store, Duration retention, Set<String> advisoryTypes) {
        this(store, retention, advisoryTypes, Map.of());
    }

    /**
     * @param receives by consumer, the event types it receives where it receives only some of them
     *                 ({@code outbox.inbox.receives}); a consumer missing here receives every type
     */
    public Resequencer(InboxStore store, Duration retention, Set<String> advisoryTypes,
                       Map<String, Set<String>> receives) {
        this.store = store;
        this.retention = retention;
        this.advisoryTypes = Set.copyOf(advisoryTypes);
        this.receives = Map.copyOf(receives);
    }

    /**
     * R5.7: the version an event follows at this consumer. At a consumer that receives every type, the one just
     * before it; at one that receives only some, the latest earlier version of those, from the event's header (a
     * message without the header is taken the safe way: the version just before it).
     */
    private long waitsFor(String consumer, Received received) {
        long version = received.event().aggregateVersion();
        Set<String> types = receives.get(consumer);
        if (types == null || received.previous() == null) {
            return version - 1;
        }
        long latest = received.previous().latestOf(types);
        return latest < version ? latest : version - 1; // a header naming a later version is damaged: the safe way
    }

    /** What the marks and the waiting rows keep of {@link #waitsFor}: null for the version just before it. */
    private static Long previousColumn(long version, long waitsFor) {
        return waitsFor == version - 1 ? null : waitsFor;
    }

    /**
     * @param releaseBelow apply the events that waited for this one up to, not including, this version:
     *                     {@link #RELEASE_ALL}, or the version of a successor that failed ({@link SuccessorFailed})
     * @throws Exception whatever the received event's own change threw; the transaction must roll back
     */
    public Result receive(String consumer, Received received, Change change, long releaseBelow) throws Exception {
        InboxedEvent event = received.event();
        Set<String> types = receives.get(consumer);
        if (types != null && !types.contains(event.eventType())) {
            return Result.of(Inbox.Receipt.NOT_RECEIVED); // R5.7: not one of its types; its successors never wait for it
        }
        if (event.aggregateVersion() == null || event.aggregateType() == null || event.aggregateId() == null) {
            if (!mark(consumer, event, null)) {
                return duplicate(consumer, event.eventId());
            }
            change.apply(received);
            return Result.of(Inbox.Receipt.FIRST);
        }
        long highWater = store.lockHighWater(consumer, event.aggregateType(), event.aggregateId());
        long version = event.aggregateVersion();
        long waitsFor = waitsFor(consumer, received);
        VersionCheck.Verdict verdict = VersionCheck.decide(event.ordering(), highWater, version, waitsFor);
        if (verdict == VersionCheck.Verdict.BEHIND) {
            return behind(consumer, received);
        }
        // Read for an independent event ahead of its turn too: a strict event may wait at its version (R7.7).
        WaitingPage waiting = WaitingPage.read(store.waitingFrom(consumer, event.aggregateType(),
                event.aggregateId(), highWater + 1), highWater + 1);
        if (event.ordering() == Ordering.STRICT) {
            // R5.7: a strict event never goes ahead of one of the consumer's own that waits below it, whatever its
            // header says (its aggregate's earlier rows cleaned up at the producer): it waits after that one.
            long waitingBelow = waiting.rows().stream().mapToLong(row -> row.event().aggregateVersion())
                    .filter(v -> v < version).max().orElse(0);
            if (waitingBelow > Math.max(highWater, waitsFor)) {
                waitsFor = waitingBelow;
                verdict = VersionCheck.Verdict.WAIT;
            }
        }
        return verdict == VersionCheck.Verdict.APPLY
                ? apply(consumer, received, change, highWater, waitsFor, releaseBelow, waiting)
                : waitForTurn(consumer, received, waitsFor, waiting);
    }

    private Result apply(String consumer, Received received, Change change, long highWater, long waitsFor,
                         long releaseBelow, WaitingPage waitingAboveMark) throws Exception {
        InboxedEvent event = received.event();
        long version = event.aggregateVersion();
        boolean next = waitsFor <= highWater;
        WaitingPage waiting = waitingAboveMark;
        Optional<WaitingRow> atVersion = waitingAt(consumer, event, waiting);
        if (atVersion.isPresent()) {
            EventId waitingId = atVersion.get().event().eventId();
            if (!waitingId.equals(event.eventId())) {
                // Two events claim this version; the one that came first waited and is applied now (R7.7).
                Inbox.Receipt parked = parkConflict(consumer, received, waitingId).receipt();
                if (!next) {
                    return Result.of(parked);
                }
                Result released = releaseAfter(consumer, event.aggregateType(), event.aggregateId(), highWater,
                        waiting, change, releaseBelow);
                return new Result(parked, released.released(), released.more());
            }
            // It waited, failed in its turn or was stored before an operator's skip, and comes again in its turn.
            store.endWaiting(consumer, event.eventId());
            waiting = waiting.without(atVersion.get());
        }
        // An independent event applied ahead of its turn may hold this version already (R7.7): under this id it is
        // a duplicate, under another a fork.
        List<EventId> marked = store.markedAt(consumer, event.aggregateType(), event.aggregateId(), version);
        if (marked.contains(event.eventId())) {
            return duplicate(consumer, event.eventId());
        }
        if (!marked.isEmpty()) {
            return parkConflict(consumer, received, marked.get(0));
        }
        if (!mark(consumer, event, previousColumn(version, waitsFor))) {
            return duplicate(consumer, event.eventId());
        }
        change.apply(received);
        if (!next) {
            return Result.of(Inbox.Receipt.FIRST); // an independent event ahead of its turn: counted when reached
        }
        Result released = releaseAfter(consumer, event.aggregateType(), event.aggregateId(), highWater, waiting,
                change, releaseBelow);
        return new Result(Inbox.Receipt.FIRST, released.released(), released.more());
    }

    /**
     * The event waiting at this event's version, if any (its own row, or a fork's, R7.7): from the page read above
     * the mark where it reaches that far, else read at the version.
     */
    private Optional<WaitingRow> waitingAt(String consumer, InboxedEvent event, WaitingPage page) throws SQLException {
        long version = event.aggregateVersion();
        List<WaitingRow> rows = page.reaches(version) ? page.rows()
                : store.waitingFrom(consumer, event.aggregateType(), event.aggregateId(), version);
        return rows.stream().filter(row -> row.event().aggregateVersion() == version).findFirst();
    }

    /**
     * One page of an aggregate's waiting events as read, lowest first: whether more may follow it, and the last
     * version read, where the next page starts.
     */
    private record WaitingPage(List<WaitingRow> rows, boolean more, long readThrough) {

        static WaitingPage read(List<WaitingRow> fetched, long from) {
            return new WaitingPage(List.copyOf(fetched), fetched.size() == InboxStore.WAITING_PAGE,
                    fetched.isEmpty() ? from - 1 : fetched.get(fetched.size() - 1).event().aggregateVersion());
        }

        /** Whether every waiting event up to {@code version} is on this page. */
        boolean reaches(long version) {
            return !more || version <= readThrough;
        }

        /** The page without a row whose waiting ended (its event came again in its turn): still read through. */
        WaitingPage without(WaitingRow ended) {
            List<WaitingRow> left = new ArrayList<>(rows);
            left.remove(ended);
            return new WaitingPage(List.copyOf(left), more, readThrough);
        }
    }

    /**
     * Applies, in version order, the waiting events that are next from {@code highWater} on (the caller's own event
     * is marked already, so the mark moves over it first), below {@code releaseBelow} and at most
     * {@link #RELEASE_CAP} of them, and sets the high-water mark where that ends.
     */
    private Result releaseAfter(String consumer, String aggregateType, String aggregateId, long highWater,
                                WaitingPage prefetched, Change change, long releaseBelow) throws SQLException {
        List<Received> released = new ArrayList<>();
        List<WaitingRow> page = new ArrayList<>(prefetched.rows());
        boolean more = prefetched.more();
        long readThrough = prefetched.readThrough();
        long reached = highWater;
        boolean capped = false;
        while (true) {
            if (page.isEmpty() && more) {
                // the next page after the last one read, not after the mark
                WaitingPage next = WaitingPage.read(store.waitingFrom(consumer, aggregateType, aggregateId,
                        readThrough + 1), readThrough + 1);
                page.addAll(next.rows());
                more = next.more();
                readThrough = next.readThrough();
            }
            // R5.7: the mark moves over what is applied, never past an event that still waits (a mark beyond it,
            // of an independent event applied on a header that knew less, would take it there).
            reached = store.advanceHighWater(consumer, aggregateType, aggregateId, reached,
                    page.isEmpty() ? Long.MAX_VALUE : page.get(0).event().aggregateVersion());
            if (page.isEmpty() || page.get(0).waitsFor() > reached
                    || page.get(0).event().aggregateVersion() >= releaseBelow) {
                break;
            }
            if (released.size() == RELEASE_CAP) {
                capped = true;
                break;
            }
            WaitingRow row = page.remove(0);
            Received successor = new Received(row.event(), row.brokerId(), row.properties());
            store.endWaiting(consumer, row.event().eventId());
            if (mark(consumer, row.event(), row.previousVersion())) {
                applySuccessor(change, successor);
                released.add(successor);
            }
        }
        if (reached > highWater) {
            store.setHighWater(consumer, aggregateType, aggregateId, reached);
        }
        return new Result(Inbox.Receipt.FIRST, released, capped);
    }

    private static void applySuccessor(Change change, Received successor) {
        try {
            change.apply(successor);
        } catch (VirtualMachineError fatal) {
            if (!(fatal instanceof StackOverflowError)) {
                throw fatal; // out of memory, an internal error: nothing about this event
            }
            throw new SuccessorFailed(successor, fatal);
        } catch (Throwable failed) {
            throw new SuccessorFailed(successor, failed);
        }
    }

    private Result waitForTurn(String consumer, Received received, long waitsFor, WaitingPage waitingAboveMark)
            throws SQLException {
        InboxedEvent event = received.event();
        Optional<WaitingRow> atVersion = waitingAt(consumer, event, waitingAboveMark);
        if (atVersion.isPresent()) {
            EventId waitingId = atVersion.get().event().eventId();
            if (waitingId.equals(event.eventId())) {
                return Result.of(Inbox.Receipt.DUPLICATE); // stored already: the broker delivered it again
            }
            return parkConflict(consumer, received, waitingId);
        }
        List<EventId> marked = store.markedAt(consumer, event.aggregateType(), event.aggregateId(),
                event.aggregateVersion());
        if (!marked.isEmpty()) {
            // An independent event applied ahead of its turn holds this version already: a fork (R7.7).
            return marked.contains(event.eventId()) ? duplicate(consumer, event.eventId())
                    : parkConflict(consumer, received, marked.get(0));
        }
        if (store.isConflict(consumer, event.eventId())) {
            return Result.of(Inbox.Receipt.DUPLICATE);
        }
        store.startWaiting(consumer, event, received.brokerId(), received.properties(),
                previousColumn(event.aggregateVersion(), waitsFor));
        return Result.of(Inbox.Receipt.WAITING);
    }

    private Result behind(String consumer, Received received) throws SQLException {
        InboxedEvent event = received.event();
        List<EventId> marked = store.markedAt(consumer, event.aggregateType(), event.aggregateId(),
                event.aggregateVersion());
        if (marked.contains(event.eventId())) {
            return duplicate(consumer, event.eventId());
        }
        if (store.isConflict(consumer, event.eventId())) {
            return Result.of(Inbox.Receipt.DUPLICATE); // parked already
        }
        if (!marked.isEmpty()) {
            return parkConflict(consumer, received, marked.get(0));
        }
        Optional<String> skippedBy = store.skippedBy(consumer, event.aggregateType(), event.aggregateId(),
                event.aggregateVersion());
        if (skippedBy.isPresent()) {
            if (ADVISORY_SKIPPER.equals(skippedBy.get()) && !advisoryTypes.contains(event.eventType())) {
                // The advisory skip passed over a version of a type whose order is not advisory: nobody decided
                // to lose this one, so an operator does (R5.7), as for a fork.
                return parkConflict(consumer, received, null);
            }
            mark(consumer, event, null); // its redeliveries are duplicates from here on
            return Result.of(Inbox.Receipt.SKIPPED);
        }
        // Below the mark with no mark of its own: the event applied at this version is past the marks' retention,
        // so which one it was cannot be told. Parked for an operator, never taken for a duplicate (R5.6, R7.7).
        return parkConflict(consumer, received, null);
    }

    /**
     * The operator's audited decision (R5.7): the consumer stops waiting for the missing versions after its
     * high-water mark, up to {@code through}. Only missing versions are skipped, and waiting events whose change kept
     * failing in their turn (dropped, their ids returned for the audit trail); a waiting event that can still be
     * applied is never skipped. The events waiting after {@code through} are applied by the consumer's release sweep
     * ({@link #releaseReady}).
     *
     * @throws IllegalArgumentException when {@code through} is not after the mark, or reaches a waiting event that can
     *                                  be applied, or nothing waits at all (no gap)
     */
    public Skip skip(String consumer, String aggregateType, String aggregateId, long through, String by,
                     String reason) throws SQLException {
        String aggregate = aggregateType + "/" + aggregateId;
        long highWater = store.lockHighWater(consumer, aggregateType, aggregateId);
        if (through <= highWater) {
            throw new IllegalArgumentException("consumer " + consumer + " has passed " + aggregate + " up to version "
                    + highWater + " already; nothing to skip through " + through);
        }
        List<WaitingRow> waiting = store.waitingFrom(consumer, aggregateType, aggregateId, highWater + 1);
        if (waiting.isEmpty()) {
            throw new IllegalArgumentException("consumer " + consumer + " waits for nothing in " + aggregate
                    + ": no gap to skip");
        }
        List<EventId> dropped = new ArrayList<>();
        for (WaitingRow row : waiting) {
            if (row.event().aggregateVersion() > through) {
                break;
            }
            if (row.failures() == 0) {
                throw new IllegalArgumentException("version " + row.event().aggregateVersion() + " of " + aggregate
                        + " waits at consumer " + consumer + " and can be applied (" + row.event().eventId()
                        + "): skip only the versions before it, through " + (row.event().aggregateVersion() - 1));
            }
            dropped.add(row.event().eventId());
        }
        if (through >= waiting.get(waiting.size() - 1).event().aggregateVersion() + 1
                && waiting.size() < InboxStore.WAITING_PAGE) {
            throw new IllegalArgumentException("version " + through + " of " + aggregate + " is after every event"
                    + " waiting at consumer " + consumer + ": only a gap before a waiting event is skipped");
        }
        for (EventId id : dropped) {
            store.endWaiting(consumer, id);
        }
        store.skip(consumer, aggregateType, aggregateId, highWater + 1, through, by, reason);
        long firstWaitingAfter = waiting.stream().mapToLong(row -> row.event().aggregateVersion())
                .filter(v -> v > through).min().orElse(Long.MAX_VALUE);
        store.setHighWater(consumer, aggregateType, aggregateId,
                store.advanceHighWater(consumer, aggregateType, aggregateId, through, firstWaitingAfter));
        return new Skip(aggregate, highWater + 1, through, dropped);
    }

    /** Who skips an advisory gap in the skip's record: the consumer itself, by the setting. */
    public static final String ADVISORY_SKIPPER = "outbox";

    /**
     * R5.7's opt-out, per event type ({@code outbox.inbox.advisory-order}): a gap before a waiting event of an
     * advisory type that has been the aggregate's first waiting event for longer than {@code wait} is skipped as an
     * operator's skip would be, recorded as by {@link #ADVISORY_SKIPPER}; the consumer's release sweep then applies
     * what waited. A skipped version that comes later is recorded as skipped and never applied if its type is
     * advisory too (the setting's documented cost), and parked as a conflict for an operator if it is not.
     */
    public List<Skip> skipAdvisoryGaps(String consumer, Duration wait, int limit) throws SQLException {
        List<Skip> skipped = new ArrayList<>();
        for (String type : advisoryTypes) {
            for (InboxStore.Waited waited : store.longestWaiting(consumer, type, limit)) {
                if (waited.waited().compareTo(wait) < 0) {
                    break; // the longest first: the rest waited less
                }
                long highWater = store.lockHighWater(consumer, waited.aggregateType(), waited.aggregateId());
                List<WaitingRow> waiting = store.waitingFrom(consumer, waited.aggregateType(), waited.aggregateId(),
                        highWater + 1);
                // Decided after the lock: the event that waited that long must still be the first one waiting and
                // still behind a gap (a delivery may have closed it meanwhile, leaving a younger one first).
                if (waiting.isEmpty() || waiting.get(0).event().aggregateVersion() != waited.version()
                        || waiting.get(0).waitsFor() <= highWater) {
                    continue;
                }
                skipped.add(skip(consumer, waited.aggregateType(), waited.aggregateId(), waited.version() - 1,
                        ADVISORY_SKIPPER, "the order of " + type + " is advisory (outbox.inbox.advisory-order) and"
                                + " it waited longer than " + wait.toMillis() + " ms (outbox.inbox.advisory-wait-ms)"));
            }
        }
        return skipped;
    }

    /** The aggregates of the consumer whose next version waits and has not failed too often. */
    public List<String[]> ready(String consumer, int limit) throws SQLException {
        return store.ready(consumer, limit);
    }

    /**
     * Applies the waiting events of one aggregate whose turn has come without a delivery to bring them (after an
     * operator's skip, a failed successor, a capped release), below {@code releaseBelow}, in this transaction.
     */
    public Result releaseReady(String consumer, String aggregateType, String aggregateId, Change change,
                               long releaseBelow) throws SQLException {
        long highWater = store.lockHighWater(consumer, aggregateType, aggregateId);
        WaitingPage waiting = WaitingPage.read(store.waitingFrom(consumer, aggregateType, aggregateId, highWater + 1),
                highWater + 1);
        return releaseAfter(consumer, aggregateType, aggregateId, highWater, waiting, change, releaseBelow);
    }

    private Result parkConflict(String consumer, Received received, EventId appliedEventId) throws SQLException {
        InboxedEvent event = received.event();
        if (store.isConflict(consumer, event.eventId())) {
            return Result.of(Inbox.Receipt.DUPLICATE); // parked already: whatever comes again
        }
        store.parkConflict(new InboxStore.Conflict(consumer, event.eventId(), event.aggregateType(),
                event.aggregateId(), event.aggregateVersion(), appliedEventId, event.eventType(), received.brokerId()));
        return Result.of(Inbox.Receipt.CONFLICT);
    }

    private Result duplicate(String consumer, EventId eventId) throws SQLException {
        store.countDuplicate(consumer, eventId);
        return Result.of(Inbox.Receipt.DUPLICATE);
    }

    private boolean mark(String consumer, InboxedEvent event, Long previousVersion) throws SQLException {
        // The mark's retention is days long: this server's clock is good enough for it.
        OffsetDateTime now = OffsetDateTime.now(ZoneOffset.UTC);
        return store.mark(consumer, event, previousVersion, now, now.plus(retention));
    }
}
