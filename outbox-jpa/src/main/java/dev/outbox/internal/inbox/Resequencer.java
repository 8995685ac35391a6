package dev.outbox.internal.inbox;

import dev.outbox.EventId;
import dev.outbox.Inbox;
import dev.outbox.InboxedEvent;
import dev.outbox.internal.persistence.InboxStore;
import dev.outbox.internal.persistence.InboxStore.WaitingRow;

import java.sql.SQLException;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

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

    /** What the inbox did with one received event, and which waiting events it applied after it. */
    public record Result(Inbox.Receipt receipt, List<Received> released) {
        static Result of(Inbox.Receipt receipt) {
            return new Result(receipt, List.of());
        }
    }

    /**
     * The change of a waiting event failed when its turn came. Thrown through the transaction, which rolls back
     * whole; the caller applies the received event again without releasing ({@code release == false}) and records
     * the failure on the waiting event, so a poison successor never blocks the version before it.
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

    /** @param retention how long a mark is kept ({@code outbox.inbox.retention}, R5.6) */
    public Resequencer(InboxStore store, Duration retention) {
        this.store = store;
        this.retention = retention;
    }

    /**
     * @param release whether to apply the events that waited for this one; false only to apply it alone after a
     *                successor failed ({@link SuccessorFailed})
     * @throws Exception whatever the received event's own change threw; the transaction must roll back
     */
    public Result receive(String consumer, Received received, Change change, boolean release) throws Exception {
        InboxedEvent event = received.event();
        if (event.aggregateVersion() == null || event.aggregateType() == null || event.aggregateId() == null) {
            if (!mark(consumer, event)) {
                return duplicate(consumer, event.eventId());
            }
            change.apply(received);
            return Result.of(Inbox.Receipt.FIRST);
        }
        long highWater = store.lockHighWater(consumer, event.aggregateType(), event.aggregateId());
        return switch (VersionCheck.decide(event.ordering(), highWater, event.aggregateVersion())) {
            case APPLY -> apply(consumer, received, change, highWater, release);
            case WAIT -> waitForTurn(consumer, received);
            case BEHIND -> behind(consumer, received);
        };
    }

    private Result apply(String consumer, Received received, Change change, long highWater, boolean release)
            throws Exception {
        InboxedEvent event = received.event();
        long version = event.aggregateVersion();
        boolean next = version == highWater + 1;
        // Read for an independent event ahead of its turn too: a strict event may wait at its version (R7.7).
        List<WaitingRow> waiting = store.waitingFrom(consumer, event.aggregateType(), event.aggregateId(), version);
        Optional<WaitingRow> atVersion = waiting.stream().filter(row -> row.event().aggregateVersion() == version)
                .findFirst();
        if (atVersion.isPresent()) {
            EventId waitingId = atVersion.get().event().eventId();
            if (!waitingId.equals(event.eventId())) {
                // Two events claim this version; the one that came first waited and is applied now (R7.7).
                Inbox.Receipt parked = parkConflict(consumer, received, waitingId).receipt();
                List<Received> released = release && next
                        ? releaseAfter(consumer, event.aggregateType(), event.aggregateId(), highWater, waiting, change)
                        : List.of();
                return new Result(parked, released);
            }
            // It waited, failed in its turn or was stored before an operator's skip, and comes again in its turn.
            store.endWaiting(consumer, event.eventId()); // releaseAfter passes over its row: below the new mark
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
        if (!mark(consumer, event)) {
            return duplicate(consumer, event.eventId());
        }
        change.apply(received);
        if (!next) {
            return Result.of(Inbox.Receipt.FIRST); // an independent event ahead of its turn: counted when reached
        }
        if (!release) {
            moveHighWater(consumer, event.aggregateType(), event.aggregateId(), highWater);
            return Result.of(Inbox.Receipt.FIRST);
        }
        return new Result(Inbox.Receipt.FIRST,
                releaseAfter(consumer, event.aggregateType(), event.aggregateId(), highWater, waiting, change));
    }

    /**
     * Applies, in version order, the waiting events that are next from {@code highWater} on (the caller's own event
     * is marked already, so the mark moves over it first), and sets the high-water mark where that ends.
     */
    private List<Received> releaseAfter(String consumer, String aggregateType, String aggregateId, long highWater,
                                        List<WaitingRow> prefetched, Change change) throws SQLException {
        List<Received> released = new ArrayList<>();
        long reached = store.advanceHighWater(consumer, aggregateType, aggregateId, highWater);
        List<WaitingRow> page = new ArrayList<>(prefetched);
        boolean more = prefetched.size() == InboxStore.WAITING_PAGE;
        while (true) {
            final long passed = reached;
            page.removeIf(row -> row.event().aggregateVersion() <= passed);
            if (page.isEmpty() && more) {
                page.addAll(store.waitingFrom(consumer, aggregateType, aggregateId, reached + 1));
                more = page.size() == InboxStore.WAITING_PAGE;
            }
            if (page.isEmpty() || page.get(0).event().aggregateVersion() != reached + 1) {
                break;
            }
            WaitingRow row = page.remove(0);
            Received successor = new Received(row.event(), row.brokerId(), row.properties());
            store.endWaiting(consumer, row.event().eventId());
            if (mark(consumer, row.event())) {
                applySuccessor(change, successor);
                released.add(successor);
            }
            reached = store.advanceHighWater(consumer, aggregateType, aggregateId, reached);
        }
        if (reached > highWater) {
            store.setHighWater(consumer, aggregateType, aggregateId, reached);
        }
        return released;
    }

    private static void applySuccessor(Change change, Received successor) {
        try {
            change.apply(successor);
        } catch (VirtualMachineError fatal) {
            throw fatal;
        } catch (Throwable failed) {
            throw new SuccessorFailed(successor, failed);
        }
    }

    private Result waitForTurn(String consumer, Received received) throws SQLException {
        InboxedEvent event = received.event();
        List<WaitingRow> waiting = store.waitingFrom(consumer, event.aggregateType(), event.aggregateId(),
                event.aggregateVersion());
        if (!waiting.isEmpty() && waiting.get(0).event().aggregateVersion().equals(event.aggregateVersion())) {
            EventId waitingId = waiting.get(0).event().eventId();
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
        store.startWaiting(consumer, event, received.brokerId(), received.properties());
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
        if (store.isSkipped(consumer, event.aggregateType(), event.aggregateId(), event.aggregateVersion())) {
            mark(consumer, event); // its redeliveries are duplicates from here on
            return Result.of(Inbox.Receipt.SKIPPED);
        }
        // Below the mark with no mark of its own: the event applied at this version is past the marks' retention,
        // so which one it was cannot be told. Parked for an operator, never taken for a duplicate (R5.6, R7.7).
        return parkConflict(consumer, received, null);
    }

    /**
     * The operator's audited decision (R5.7): the consumer stops waiting for the versions after its high-water mark
     * up to {@code through}; waiting events at those versions are dropped with them. The events waiting after
     * {@code through} are applied by the consumer's next release ({@link #releaseReady}).
     *
     * @return the first version skipped
     * @throws IllegalArgumentException when nothing after the mark is missing up to {@code through}
     */
    public long skip(String consumer, String aggregateType, String aggregateId, long through, String by,
                     String reason) throws SQLException {
        long highWater = store.lockHighWater(consumer, aggregateType, aggregateId);
        if (through <= highWater) {
            throw new IllegalArgumentException("consumer " + consumer + " has passed " + aggregateType + "/"
                    + aggregateId + " up to version " + highWater + " already; nothing to skip through " + through);
        }
        for (WaitingRow row : store.waitingFrom(consumer, aggregateType, aggregateId, highWater + 1)) {
            if (row.event().aggregateVersion() <= through) {
                store.endWaiting(consumer, row.event().eventId());
            }
        }
        store.skip(consumer, aggregateType, aggregateId, highWater + 1, through, by, reason);
        store.setHighWater(consumer, aggregateType, aggregateId,
                store.advanceHighWater(consumer, aggregateType, aggregateId, through));
        return highWater + 1;
    }

    /**
     * Applies the waiting events whose turn has come without a delivery to bring them (after an operator's skip, or
     * after a successor that failed came again), up to {@code limit} aggregates, in this transaction.
     */
    public List<Received> releaseReady(String consumer, Change change, int limit) throws SQLException {
        List<Received> released = new ArrayList<>();
        for (String[] aggregate : store.ready(consumer, limit)) {
            long highWater = store.lockHighWater(consumer, aggregate[0], aggregate[1]);
            List<WaitingRow> waiting = store.waitingFrom(consumer, aggregate[0], aggregate[1], highWater + 1);
            released.addAll(releaseAfter(consumer, aggregate[0], aggregate[1], highWater, waiting, change));
        }
        return released;
    }

    private void moveHighWater(String consumer, String aggregateType, String aggregateId, long from)
            throws SQLException {
        long reached = store.advanceHighWater(consumer, aggregateType, aggregateId, from);
        if (reached > from) {
            store.setHighWater(consumer, aggregateType, aggregateId, reached);
        }
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

    private boolean mark(String consumer, InboxedEvent event) throws SQLException {
        // The mark's retention is days long: this server's clock is good enough for it.
        OffsetDateTime now = OffsetDateTime.now(ZoneOffset.UTC);
        return store.mark(consumer, event, now, now.plus(retention));
    }
}
