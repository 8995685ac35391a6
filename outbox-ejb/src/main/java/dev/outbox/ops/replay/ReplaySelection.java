package dev.outbox.ops.replay;

import dev.outbox.ops.AdminRefusal;

import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.Arrays;
import java.util.List;
import java.util.UUID;

/**
 * What a replay selects (R9.2): exact event ids, or the delivered events recorded in a time range [from, to),
 * optionally of one event type. Stored with a replay request as text, so the approver approves exactly the
 * selection that was previewed.
 */
public record ReplaySelection(List<UUID> eventIds, OffsetDateTime from, OffsetDateTime to, String eventType) {

    /** Exact ids are for a handful of events; a bigger replay is a time range. */
    public static final int MAX_IDS = 100;

    public ReplaySelection {
        eventIds = eventIds == null ? List.of() : List.copyOf(eventIds);
        boolean byIds = !eventIds.isEmpty();
        boolean byRange = from != null || to != null;
        if (byIds == byRange) {
            throw new AdminRefusal(AdminRefusal.Kind.INVALID,
                    "a replay selects either eventIds or a time range (from and to), not both and not neither");
        }
        if (eventIds.size() > MAX_IDS) {
            throw new AdminRefusal(AdminRefusal.Kind.INVALID, "eventIds holds " + eventIds.size()
                    + " ids; at most " + MAX_IDS + ": select a bigger replay by time range");
        }
        if (byRange && (from == null || to == null || !from.isBefore(to))) {
            throw new AdminRefusal(AdminRefusal.Kind.INVALID, "a time range needs from before to (ISO-8601)");
        }
        if (eventType != null && eventType.isBlank()) {
            eventType = null;
        }
    }

    public boolean byIds() {
        return !eventIds.isEmpty();
    }

    /** The stored form: {@code ids:<id>,<id>} or {@code range:<from>|<to>|<eventType or empty>}. */
    public String stored() {
        if (byIds()) {
            return "ids:" + String.join(",", eventIds.stream().map(UUID::toString).toList());
        }
        return "range:" + from + "|" + to + "|" + (eventType == null ? "" : eventType);
    }

    public static ReplaySelection parse(String stored) {
        try {
            if (stored.startsWith("ids:")) {
                return new ReplaySelection(Arrays.stream(stored.substring(4).split(",")).map(UUID::fromString)
                        .toList(), null, null, null);
            }
            String[] parts = stored.substring("range:".length()).split("\\|", -1);
            return new ReplaySelection(List.of(), OffsetDateTime.parse(parts[0]), OffsetDateTime.parse(parts[1]),
                    parts[2]);
        } catch (RuntimeException e) {
            if (e instanceof AdminRefusal refusal) {
                throw refusal;
            }
            throw new IllegalStateException("stored replay selection is unreadable: " + stored, e);
        }
    }

    /** Parses an ISO-8601 time an operator typed, naming the field when it is wrong. */
    public static OffsetDateTime time(String field, String value) {
        if (value == null || value.isBlank()) {
            return null;
        }
        try {
            return OffsetDateTime.parse(value);
        } catch (DateTimeParseException e) {
            throw new AdminRefusal(AdminRefusal.Kind.INVALID, field + " must be an ISO-8601 time with an offset,"
                    + " such as 2026-12-03T10:00:00Z, but was '" + value + "'");
        }
    }
}
