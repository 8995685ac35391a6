package dev.outbox.internal.persistence;


import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The backlog at one moment, per event type (R6.1, R6.2): pending rows, the oldest of them, parked rows, and the
 * pending rows whose last attempt failed, by error class. Read with two grouped queries over the pending and
 * parked rows only, so its cost follows the backlog, not the table.
 */
public record Backlog(OffsetDateTime readAt, Map<String, Long> pending, Map<String, OffsetDateTime> oldestPending,
                      Map<String, Long> parked, Map<String, Map<String, Long>> failingByClass, Gaps gaps) {

    public static final Backlog EMPTY = new Backlog(OffsetDateTime.MIN, Map.of(), Map.of(), Map.of(), Map.of(),
            new Gaps(Map.of(), Map.of(), Map.of()));

    /**
     * The consumers' side (R5.7, R7.7), by consumer, where their inboxes share this database: events waiting for
     * the versions before them (how many, since when by the database's clock) and forks parked as conflicts.
     */
    public record Gaps(Map<String, Long> waiting, Map<String, OffsetDateTime> oldestWaiting,
                       Map<String, Long> conflicts) {

        /** Every consumer that has waiting events or conflicts. */
        public Set<String> consumers() {
            Set<String> consumers = new TreeSet<>(waiting.keySet());
            consumers.addAll(conflicts.keySet());
            return consumers;
        }
    }

    static Backlog read(Connection connection, OffsetDateTime now) throws SQLException {
        Map<String, Long> pending = new TreeMap<>();
        Map<String, OffsetDateTime> oldest = new TreeMap<>();
        Map<String, Long> parked = new TreeMap<>();
        Map<String, Map<String, Long>> failing = new TreeMap<>();
        try (PreparedStatement select = connection.prepareStatement(OutboxRows.PENDING_BY_TYPE);
             ResultSet rs = select.executeQuery()) {
            while (rs.next()) {
                String type = rs.getString("event_type");
                String errorClass = rs.getString("last_error_class");
                long count = rs.getLong("events");
                OffsetDateTime first = rs.getObject("oldest", OffsetDateTime.class);
                pending.merge(type, count, Long::sum);
                oldest.merge(type, first, (a, b) -> a.isBefore(b) ? a : b);
                if (errorClass != null) {
                    failing.computeIfAbsent(type, t -> new TreeMap<>()).merge(errorClass, count, Long::sum);
                }
            }
        }
        try (PreparedStatement select = connection.prepareStatement(OutboxRows.PARKED_BY_TYPE);
             ResultSet rs = select.executeQuery()) {
            while (rs.next()) {
                parked.put(rs.getString("event_type"), rs.getLong("events"));
            }
        }
        Map<String, Long> waiting = new TreeMap<>();
        Map<String, OffsetDateTime> oldestWaiting = new TreeMap<>();
        Map<String, Long> conflicts = new TreeMap<>();
        try (PreparedStatement select = connection.prepareStatement(InboxStore.WAITING_BY_CONSUMER);
             ResultSet rs = select.executeQuery()) {
            while (rs.next()) {
                waiting.put(rs.getString("consumer"), rs.getLong("events"));
                oldestWaiting.put(rs.getString("consumer"), rs.getObject("oldest", OffsetDateTime.class));
            }
        }
        try (PreparedStatement select = connection.prepareStatement(InboxStore.CONFLICTS_BY_CONSUMER);
             ResultSet rs = select.executeQuery()) {
            while (rs.next()) {
                conflicts.put(rs.getString("consumer"), rs.getLong("events"));
            }
        }
        return new Backlog(now, pending, oldest, parked, failing, new Gaps(waiting, oldestWaiting, conflicts));
    }

    /** Every event type with pending or parked rows. */
    public Set<String> eventTypes() {
        Set<String> types = new TreeSet<>(pending.keySet());
        types.addAll(parked.keySet());
        return types;
    }

    /** Age of the oldest pending event of a type, 0 when none is pending. */
    public Duration oldestPendingAge(String eventType) {
        OffsetDateTime first = oldestPending.get(eventType);
        return first == null || first.isAfter(readAt) ? Duration.ZERO : Duration.between(first, readAt);
    }

    /** Age of the oldest pending event of any type. */
    public Duration oldestPendingAge() {
        return oldestPending.keySet().stream().map(this::oldestPendingAge).max(Duration::compareTo)
                .orElse(Duration.ZERO);
    }

    /** Pending events of all types. */
    public long pendingTotal() {
        return pending.values().stream().mapToLong(Long::longValue).sum();
    }

    /** Parked events of all types. */
    public long parkedTotal() {
        return parked.values().stream().mapToLong(Long::longValue).sum();
    }

    /** How long the oldest event a consumer holds has waited for the versions before it; 0 when none waits. */
    public Duration oldestWaitingAge(String consumer) {
        OffsetDateTime first = gaps.oldestWaiting().get(consumer);
        return first == null || first.isAfter(readAt) ? Duration.ZERO : Duration.between(first, readAt);
    }
}
