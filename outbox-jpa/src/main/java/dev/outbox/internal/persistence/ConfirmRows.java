package dev.outbox.internal.persistence;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.OffsetDateTime;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.function.Function;

/**
 * The confirm's rare outcomes (parks and retries), each a conditional statement per event run as one JDBC batch.
 * Every statement holds only while the claim is still ours (same claimer, same lease version): a publisher whose
 * lease ran out never overwrites the result of the claimer that took over (R4.2). Each method answers the ids it
 * changed; an id missing from the answer lost its lease.
 */
public final class ConfirmRows {

    /** A claimed event as the claim left it: the row the confirm may change while the lease version still holds. */
    public record Claimed(UUID eventId, long leaseVersion) {
    }

    /** R4.5: parked at once, with the failure's class. */
    public record Park(Claimed claim, String errorClass) {
    }

    /** R4.4: due again at the backoff's time, with the failure's class. */
    public record Retry(Claimed claim, OffsetDateTime dueAt, String errorClass) {
    }

    /** R6.6: a transport accepted (or may have accepted) an event the attempt did not deliver everywhere. */
    public record Accepted(UUID eventId, String transport) {
    }

    private ConfirmRows() {
    }

    public static Set<UUID> park(Connection connection, String claimer, OffsetDateTime now, List<Park> parks)
            throws SQLException {
        return run(connection, OutboxRows.PARK, claimer, parks, Park::claim, (statement, park) -> {
            statement.setString(1, park.errorClass());
            statement.setObject(2, now);
            return 3;
        });
    }

    public static Set<UUID> retry(Connection connection, String claimer, List<Retry> retries) throws SQLException {
        return run(connection, OutboxRows.RETRY_LATER, claimer, retries, Retry::claim, (statement, retry) -> {
            statement.setObject(1, retry.dueAt());
            statement.setString(2, retry.errorClass());
            return 3;
        });
    }

    /**
     * Adds each transport to its event's {@code accepted_by} set, once, whoever holds the lease now: a broker that
     * took the event took it (R6.6: a repair of its body is refused from then on).
     */
    public static void accepted(Connection connection, List<Accepted> accepted) throws SQLException {
        if (accepted.isEmpty()) {
            return;
        }
        // In event id order: two confirms of one row (a lost lease and its takeover) lock rows in the same order.
        List<Accepted> ordered = accepted.stream().sorted(java.util.Comparator.comparing(Accepted::eventId)).toList();
        try (PreparedStatement statement = connection.prepareStatement(OutboxRows.ACCEPTED_BY)) {
            for (Accepted one : ordered) {
                statement.setString(1, one.transport());
                statement.setObject(2, one.eventId());
                statement.setString(3, one.transport());
                statement.addBatch();
            }
            statement.executeBatch();
        }
    }

    /** Never handed to a broker: the claim's attempt is given back and the row is due again at {@code now}. */
    public static Set<UUID> dueAgain(Connection connection, String claimer, OffsetDateTime now, List<Claimed> claims)
            throws SQLException {
        return run(connection, OutboxRows.RETRY_NOT_SENT, claimer, claims, claim -> claim, (statement, claim) -> {
            statement.setObject(1, now);
            return 2;
        });
    }

    /** Binds a change's own columns from 1 on and returns the index where the claim's columns start. */
    @FunctionalInterface
    private interface Binder<T> {
        int bind(PreparedStatement statement, T change) throws SQLException;
    }

    private static <T> Set<UUID> run(Connection connection, String sql, String claimer, List<T> changes,
                                     Function<T, Claimed> claimOf, Binder<T> binder)
            throws SQLException {
        Set<UUID> changed = new HashSet<>();
        if (changes.isEmpty()) {
            return changed;
        }
        int[] counts;
        try (PreparedStatement statement = connection.prepareStatement(sql)) {
            for (T change : changes) {
                Claimed claim = claimOf.apply(change);
                int index = binder.bind(statement, change);
                statement.setObject(index, claim.eventId());
                statement.setString(index + 1, claimer);
                statement.setLong(index + 2, claim.leaseVersion());
                statement.addBatch();
            }
            counts = statement.executeBatch();
        }
        for (int i = 0; i < changes.size(); i++) {
            // SUCCESS_NO_INFO: the driver ran the row but did not count it; the statement is conditional, so only
            // an explicit 0 means the claim was no longer ours.
            if (counts[i] != 0) {
                changed.add(claimOf.apply(changes.get(i)).eventId());
            }
        }
        return changed;
    }
}
