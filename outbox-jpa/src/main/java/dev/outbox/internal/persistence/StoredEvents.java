package dev.outbox.internal.persistence;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

/**
 * Outbox rows as operators read and change them: one event, the parked ones, a replay's candidates, and the
 * conditional state changes of repair and replay (R6.6, R9.2-R9.4). Every change names the state it expects, so an
 * event that moved meanwhile (claimed, delivered, parked again, cleaned up) is left as it is and reported unchanged.
 */
@ApplicationScoped
public class StoredEvents {

    @Inject
    OutboxDataSource database;

    /** For CDI. */
    public StoredEvents() {
    }

    /** Outside a container: the protocol checker and in-process tests. */
    public StoredEvents(OutboxDataSource database) {
        this.database = database;
    }

    public Optional<StoredEvent> find(UUID eventId) {
        return database.onConnection(connection -> find(connection, OutboxRows.EVENT_BY_ID, eventId),
                () -> "cannot read outbox event " + eventId);
    }

    /** One event, its row locked until the caller's transaction ends ({@link OutboxRows#EVENT_BY_ID_FOR_UPDATE}). */
    public Optional<StoredEvent> findLocked(UUID eventId) {
        return database.onConnection(connection -> find(connection, OutboxRows.EVENT_BY_ID_FOR_UPDATE, eventId),
                () -> "cannot lock outbox event " + eventId);
    }

    /** Parked events, oldest first, without bodies. */
    public List<StoredEvent> parked(int limit) {
        return database.onConnection(connection -> list(connection, OutboxRows.PARKED_PAGE, limit),
                () -> "cannot list parked outbox events");
    }

    /** Delivered events recorded in [from, to), of one type or all (null), oldest first, without bodies. */
    public List<StoredEvent> delivered(OffsetDateTime from, OffsetDateTime to, String eventType, int limit) {
        return database.onConnection(connection -> list(connection, OutboxRows.replayRange(eventType != null), from,
                to, eventType, limit), () -> "cannot select delivered events to replay");
    }

    /** Parked events of one last error class, of one type or all (null), oldest first, without bodies. */
    public List<StoredEvent> parkedWith(String errorClass, String eventType, int limit) {
        return database.onConnection(connection -> list(connection, OutboxRows.parkedWith(eventType != null),
                errorClass, eventType, limit), () -> "cannot select parked events to resume");
    }

    /** The events of these ids, in their order, each one empty where there is none (never recorded, cleaned up). */
    public List<Optional<StoredEvent>> byIds(List<UUID> eventIds) {
        return database.onConnection(connection -> {
            List<Optional<StoredEvent>> found = new ArrayList<>();
            for (UUID eventId : eventIds) {
                found.add(find(connection, OutboxRows.EVENT_BY_ID, eventId));
            }
            return found;
        }, () -> "cannot read the events of a replay selection");
    }

    /** R6.6: the body and schema version of a parked event; false when it is no longer parked. */
    public boolean fixParked(UUID eventId, String payload, String payloadRef, int schemaVersion) {
        return database.onConnection(connection -> {
            try (PreparedStatement update = connection.prepareStatement(OutboxRows.FIX_PARKED)) {
                update.setString(1, payload);
                update.setString(2, payloadRef);
                update.setInt(3, schemaVersion);
                update.setObject(4, eventId);
                return update.executeUpdate() == 1;
            }
        }, () -> "cannot fix parked outbox event " + eventId);
    }

    /** The events made due again by {@link #makeDue}, and when the first of them came due. */
    public record MadeDue(OffsetDateTime start, List<UUID> eventIds) {
    }

    /**
     * Puts each event that is still {@code from} (delivered for a replay, parked for a resume) back to pending with
     * its own event id; the k-th one changed comes due k times {@code apart} after the database's time now, which
     * is the clock the claim reads (R9.4's rate limit).
     */
    public MadeDue makeDue(DeliveryState from, List<UUID> eventIds, Duration apart) {
        String statement = switch (from) {
            case DELIVERED -> OutboxRows.REPLAY_ONE;
            case PARKED -> OutboxRows.RESUME_PARKED;
            case PENDING -> throw new IllegalArgumentException("a pending event is due already");
        };
        return database.onConnection(connection -> {
            OffsetDateTime start = Sql.clock(connection);
            List<UUID> changed = new ArrayList<>();
            try (PreparedStatement update = connection.prepareStatement(statement)) {
                for (UUID eventId : eventIds) {
                    update.setObject(1, start.plus(apart.multipliedBy(changed.size())));
                    update.setObject(2, eventId);
                    if (update.executeUpdate() == 1) {
                        changed.add(eventId);
                    }
                }
            }
            return new MadeDue(start, List.copyOf(changed));
        }, () -> "cannot make " + eventIds.size() + " " + from + " events due again");
    }

    /** The database's time now, the clock every due time and lease is read on. */
    public OffsetDateTime clock() {
        return database.onConnection(Sql::clock, () -> "cannot read the database's clock");
    }

    private static Optional<StoredEvent> find(Connection connection, String sql, UUID eventId) throws SQLException {
        try (PreparedStatement select = connection.prepareStatement(sql)) {
            select.setObject(1, eventId);
            try (ResultSet rs = select.executeQuery()) {
                return rs.next() ? Optional.of(StoredEvent.read(rs)) : Optional.empty();
            }
        }
    }

    /** Runs a select with its parameters in order, a null one left out (optional filters come before the limit). */
    private static List<StoredEvent> list(Connection connection, String sql, Object... parameters)
            throws SQLException {
        try (PreparedStatement select = connection.prepareStatement(sql)) {
            int index = 1;
            for (Object parameter : parameters) {
                if (parameter != null) {
                    select.setObject(index++, parameter);
                }
            }
            List<StoredEvent> events = new ArrayList<>();
            try (ResultSet rs = select.executeQuery()) {
                while (rs.next()) {
                    events.add(StoredEvent.read(rs));
                }
            }
            return events;
        }
    }
}
