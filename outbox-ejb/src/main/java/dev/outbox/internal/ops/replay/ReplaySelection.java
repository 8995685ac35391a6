package dev.outbox.internal.ops.replay;

import dev.outbox.internal.ops.AdminRefusal;

import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.Arrays;
import java.util.List;
import java.util.UUID;

/**
 * What a replay selects (R9.2): exact event ids, or the delivered events recorded in a time range [from, to),
 * optionally of one event type; or the events parked with one error class ({@code parkedWith}), optionally of one
 * event type: a bulk resume after a configuration error (an authorization or invalid-topic failure) parked many
 * at once, under the same approval rules and audit as a replay (R6.6, R9.4). Stored with a request as text.
 */
public record ReplaySelection(List<UUID> eventIds, OffsetDateTime from, OffsetDateTime to, String eventType,
                              String parkedWith) {

    /** Exact ids are for a handful of events; a bigger replay is a time range. */
    public static final int MAX_IDS = 100;

    public ReplaySelection {
        eventIds = eventIds == null ? List.of() : List.copyOf(eventIds);
        parkedWith = parkedWith == null || parkedWith.isBlank() ? null : parkedWith.trim();
        boolean byIds = !eventIds.isEmpty();
        boolean byRange = from != null || to != null;
        boolean byParked = parkedWith != null;
        if ((byIds ? 1 : 0) + (byRange ? 1 : 0) + (byParked ? 1 : 0) != 1) {
            throw new AdminRefusal(AdminRefusal.Kind.INVALID, "a replay selects exactly one of: eventIds, a time"
                    + " range (from and to), or parkedWith (an error class, to resume the events parked with it)");
        }
        if (byParked && (parkedWith.length() > 200 || parkedWith.contains("|"))) {
            throw new AdminRefusal(AdminRefusal.Kind.INVALID, "parkedWith must be an error class as the parked list"
                    + " shows it (lastErrorClass), but was '" + parkedWith + "'");
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

    public static ReplaySelection ofIds(List<UUID> eventIds) {
        return new ReplaySelection(eventIds, null, null, null, null);
    }

    public boolean byIds() {
        return !eventIds.isEmpty();
    }

    /** Whether it resumes parked events rather than sending delivered ones again. */
    public boolean resumesParked() {
        return parkedWith != null;
    }

    /** The state a selected event must be in: PARKED for a bulk resume, DELIVERED for a replay. */
    public String selectableState() {
        return resumesParked() ? "PARKED" : "DELIVERED";
    }

    /**
     * The stored form: {@code ids:<id>,<id>}, {@code range:<from>|<to>|<eventType or empty>} or
     * {@code parked:<errorClass>|<eventType or empty>}.
     */
    public String stored() {
        if (byIds()) {
            return "ids:" + String.join(",", eventIds.stream().map(UUID::toString).toList());
        }
        if (resumesParked()) {
            return "parked:" + parkedWith + "|" + (eventType == null ? "" : eventType);
        }
        return "range:" + from + "|" + to + "|" + (eventType == null ? "" : eventType);
    }

    public static ReplaySelection parse(String stored) {
        try {
            if (stored.startsWith("ids:")) {
                return ofIds(Arrays.stream(stored.substring(4).split(",")).map(UUID::fromString).toList());
            }
            if (stored.startsWith("parked:")) {
                String[] parts = stored.substring("parked:".length()).split("\\|", -1);
                return new ReplaySelection(List.of(), null, null, parts[1], parts[0]);
            }
            String[] parts = stored.substring("range:".length()).split("\\|", -1);
            return new ReplaySelection(List.of(), OffsetDateTime.parse(parts[0]), OffsetDateTime.parse(parts[1]),
                    parts[2], null);
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
