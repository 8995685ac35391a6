package dev.outbox.internal.inbox;

import dev.outbox.internal.persistence.InboxMarks;
import dev.outbox.EventId;
import dev.outbox.Ordering;
import dev.outbox.internal.persistence.Dialect;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;

/**
 * The version gate of one consumer for one delivery (R5.7), on the connection of the consumer's transaction,
 * right after the event's inbox mark was inserted. The consumer's high-water mark of the aggregate lives in a row
 * that retention never deletes ({@code inbox_high_water}); it is locked for the decision, so two deliveries of
 * one aggregate to one consumer pass one after the other, and moves up over every version marked in a row.
 */
public final class VersionGate {

    /** How long a consumer has held an event, by the database's clock; the first call starts the hold. */
    @FunctionalInterface
    public interface Holds {
        Duration heldFor(String consumer, EventId eventId);
    }

    private final Dialect dialect;
    private final Duration window;
    private final Holds holds;

    public VersionGate(Dialect dialect, Duration window, Holds holds) {
        this.dialect = dialect;
        this.window = window;
        this.holds = holds;
    }

    /** The verdict for an event just marked; the caller rolls its transaction back on {@code HOLD}. */
    public VersionCheck.Verdict pass(Connection connection, String consumer, EventId eventId, String aggregateType,
                                     String aggregateId, long version, Ordering ordering) throws SQLException {
        long highWater = lockHighWater(connection, consumer, eventId, aggregateType, aggregateId);
        VersionCheck.Verdict verdict = VersionCheck.decide(ordering, highWater, version,
                () -> holds.heldFor(consumer, eventId), window);
        if (verdict == VersionCheck.Verdict.APPLY_AFTER_GAP) {
            // The missing versions are passed over: reported by the caller, and STALE should they come after all.
            moveHighWater(connection, consumer, aggregateType, aggregateId, highWater, version);
            endHold(connection, consumer, eventId);
        } else if (verdict == VersionCheck.Verdict.APPLY && version == highWater + 1) {
            moveHighWater(connection, consumer, aggregateType, aggregateId, highWater, highWater);
        }
        return verdict;
    }

    private long lockHighWater(Connection connection, String consumer, EventId eventId, String aggregateType,
                               String aggregateId) throws SQLException {
        Long locked = readLocked(connection, consumer, aggregateType, aggregateId);
        if (locked != null) {
            return locked;
        }
        // First delivery of this aggregate since the row exists: marks kept from before (schema V4 and earlier)
        // tell where the consumer stands; none means nothing was passed yet.
        dialect.startHighWater(connection, consumer, aggregateType, aggregateId,
                lastMarkedBefore(connection, consumer, eventId, aggregateType, aggregateId));
        return readLocked(connection, consumer, aggregateType, aggregateId);
    }

    private static Long readLocked(Connection connection, String consumer, String aggregateType, String aggregateId)
            throws SQLException {
        try (PreparedStatement select = connection.prepareStatement(InboxMarks.HIGH_WATER_LOCK)) {
            select.setString(1, consumer);
            select.setString(2, aggregateType);
            select.setString(3, aggregateId);
            try (ResultSet rs = select.executeQuery()) {
                return rs.next() ? rs.getLong("high_water") : null;
            }
        }
    }

    private static long lastMarkedBefore(Connection connection, String consumer, EventId eventId, String aggregateType,
                                         String aggregateId) throws SQLException {
        try (PreparedStatement select = connection.prepareStatement(InboxMarks.INBOX_LAST_VERSION)) {
            select.setString(1, consumer);
            select.setString(2, aggregateType);
            select.setString(3, aggregateId);
            select.setObject(4, eventId.value());
            try (ResultSet rs = select.executeQuery()) {
                rs.next();
                return rs.getLong("last_version"); // 0 when there is none
            }
        }
    }

    /**
     * Moves the mark from {@code from} past every version marked in a row above {@code start}: independent events
     * applied ahead of their turn count once the versions before them arrive.
     */
    private static void moveHighWater(Connection connection, String consumer, String aggregateType,
                                      String aggregateId, long from, long start) throws SQLException {
        long highWater = start;
        try (PreparedStatement marked = connection.prepareStatement(InboxMarks.MARKED_ABOVE)) {
            boolean more = true;
            while (more) { // a page at a time: a long run of marks is walked to its end
                long pageStart = highWater;
                int rows = 0;
                marked.setString(1, consumer);
                marked.setString(2, aggregateType);
                marked.setString(3, aggregateId);
                marked.setLong(4, pageStart);
                try (ResultSet rs = marked.executeQuery()) {
                    while (rs.next() && rs.getLong("aggregate_version") == highWater + 1) {
                        highWater++;
                        rows++;
                    }
                }
                more = rows == InboxMarks.MARKED_ABOVE_PAGE;
            }
        }
        if (highWater > from) {
            try (PreparedStatement move = connection.prepareStatement(InboxMarks.HIGH_WATER_MOVE)) {
                move.setLong(1, highWater);
                move.setString(2, consumer);
                move.setString(3, aggregateType);
                move.setString(4, aggregateId);
                move.setLong(5, highWater);
                move.executeUpdate();
            }
        }
    }

    private static void endHold(Connection connection, String consumer, EventId eventId) throws SQLException {
        try (PreparedStatement delete = connection.prepareStatement(InboxMarks.HOLD_END)) {
            delete.setString(1, consumer);
            delete.setObject(2, eventId.value());
            delete.executeUpdate();
        }
    }
}
