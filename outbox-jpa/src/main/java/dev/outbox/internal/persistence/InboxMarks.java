package dev.outbox.internal.persistence;

import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Types;
import java.time.OffsetDateTime;
import java.util.UUID;

/**
 * The statements of the inbox's marks ({@code processed_event}) and their cleanup, with that of the holds an older
 * release kept ({@code inbox_hold}, R5.1, R5.6). The resequencer's own statements are in {@link InboxStore}. Plain
 * SQL that H2, PostgreSQL and MariaDB run as it is; the inserts that must not abort a transaction on a duplicate are
 * in {@link Dialect}.
 */
public final class InboxMarks {

    public static final String INBOX_COUNT_DUPLICATE = "UPDATE processed_event SET duplicates = duplicates + 1"
            + " WHERE consumer = ? AND event_id = ?";

    public static final int MARKED_ABOVE_PAGE = 1000;

    /** The versions above the high-water mark a consumer has marked already (applied out of order), lowest first. */
    public static final String MARKED_ABOVE = "SELECT aggregate_version, previous_version FROM processed_event WHERE consumer = ? AND aggregate_type = ?"
            + " AND aggregate_id = ? AND aggregate_version > ? ORDER BY aggregate_version FETCH FIRST "
            + MARKED_ABOVE_PAGE + " ROWS ONLY";

    /**
     * Holds an older release kept (it held early strict events by rolling their delivery back), past the inbox
     * retention, in small batches: after an upgrade nothing writes them any more.
     */
    public static final String DELETE_EXPIRED_HOLDS_BATCH = "DELETE FROM inbox_hold WHERE held_since < ? AND (consumer, event_id) IN"
            + " (SELECT consumer, event_id FROM (SELECT consumer, event_id FROM inbox_hold WHERE held_since < ?"
            + " ORDER BY held_since FETCH FIRST ? ROWS ONLY) batch)";

    /**
     * R5.6: one small batch of inbox marks past their retention, re-checked as they are when locked. A mark above
     * its consumer's high-water mark stays: it is the only record that an independent event applied ahead of its
     * turn was applied (the protocol checker found duplicates re-applied without it).
     */
    public static final String DELETE_PROCESSED_BATCH = "DELETE FROM processed_event WHERE retain_until < ? AND (consumer, event_id) IN"
            + " (SELECT consumer, event_id FROM (SELECT p.consumer, p.event_id FROM processed_event p"
            + " WHERE p.retain_until < ? AND NOT EXISTS (SELECT 1 FROM inbox_high_water h WHERE h.consumer = p.consumer"
            + " AND h.aggregate_type = p.aggregate_type AND h.aggregate_id = p.aggregate_id"
            + " AND p.aggregate_version > h.high_water) ORDER BY p.retain_until FETCH FIRST ? ROWS ONLY) batch)";

    /**
     * Which consumers already applied some events, where their inboxes share this database (a replay's dry run
     * shows them): one statement over an IN list of {@code count} ids.
     */
    public static String consumersOf(int count) {
        return "SELECT consumer, COUNT(*) AS events FROM processed_event WHERE event_id IN (" + Sql.placeholders(count)
                + ") GROUP BY consumer ORDER BY consumer";
    }

    /**
     * The inbox mark, inserted only where the consumer has none for the event: a duplicate inserts nothing and raises
     * nothing. For the databases without an insert that absorbs a conflict (H2, MariaDB); bind it with
     * {@link #bindMarkUnlessMarked}.
     */
    public static final String MARK_UNLESS_MARKED = "INSERT INTO processed_event (consumer, event_id, aggregate_type,"
            + " aggregate_id, aggregate_version, processed_at, retain_until, previous_version)"
            + " SELECT ?, ?, ?, ?, ?, ?, ?, ? FROM DUAL"
            + " WHERE NOT EXISTS (SELECT 1 FROM processed_event WHERE consumer = ? AND event_id = ?)";

    public static void bindMarkUnlessMarked(PreparedStatement insert, String consumer, UUID eventId, String aggregateType,
                                            String aggregateId, Long aggregateVersion, Long previousVersion,
                                            OffsetDateTime now, OffsetDateTime retainUntil) throws SQLException {
        bindMark(insert, consumer, eventId, aggregateType, aggregateId, aggregateVersion, previousVersion, now,
                retainUntil);
        insert.setString(9, consumer);
        insert.setObject(10, eventId);
    }

    /** Binds a mark's columns in the order of {@link #MARK_UNLESS_MARKED}, the previous version last. */
    public static void bindMark(PreparedStatement insert, String consumer, UUID eventId, String aggregateType,
                         String aggregateId, Long aggregateVersion, Long previousVersion, OffsetDateTime now,
                         OffsetDateTime retainUntil) throws SQLException {
        insert.setString(1, consumer);
        insert.setObject(2, eventId);
        insert.setString(3, aggregateType);
        insert.setString(4, aggregateId);
        if (aggregateVersion == null) {
            insert.setNull(5, Types.BIGINT);
        } else {
            insert.setLong(5, aggregateVersion);
        }
        insert.setObject(6, now);
        insert.setObject(7, retainUntil);
        if (previousVersion == null) {
            insert.setNull(8, Types.BIGINT);
        } else {
            insert.setLong(8, previousVersion);
        }
    }

    /** Deletes one mark: the start-up probe's own ({@link TransactionJoin}), never a consumer's. */
    public static final String FORGET_MARK = "DELETE FROM processed_event WHERE consumer = ? AND event_id = ?";

    /** Duplicates the inbox absorbed, over every consumer whose marks share this database. */
    public static final String DUPLICATES_ABSORBED = "SELECT COALESCE(SUM(duplicates), 0) AS duplicates FROM processed_event";

    private InboxMarks() {
    }
}
