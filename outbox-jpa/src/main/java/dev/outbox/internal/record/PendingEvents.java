package dev.outbox.internal.record;

import dev.outbox.EventId;
import dev.outbox.Outboxed;
import dev.outbox.internal.persistence.PendingRow;

import java.util.ArrayList;
import java.util.List;

/**
 * What one JTA transaction has recorded so far: rows waiting for the end of the outermost {@link Outboxed}
 * command, and the ids to announce after commit. Kept as a resource of the transaction itself, so it can
 * never leak into another one.
 */
final class PendingEvents {

    private final List<PendingRow> buffered = new ArrayList<>();
    private final List<EventId> recorded = new ArrayList<>();
    private int commandDepth;

    void enterCommand() {
        commandDepth++;
    }

    /** Leaves a command; true when it was the outermost one, whose end writes the buffer. */
    boolean exitCommand() {
        commandDepth--;
        return commandDepth == 0;
    }

    boolean insideCommand() {
        return commandDepth > 0;
    }

    void buffer(List<PendingRow> rows) {
        buffered.addAll(rows);
    }

    List<PendingRow> takeBuffered() {
        List<PendingRow> rows = List.copyOf(buffered);
        buffered.clear();
        return rows;
    }

    void discardBuffered() {
        buffered.forEach(row -> recorded.remove(row.eventId()));
        buffered.clear();
    }

    void recorded(List<EventId> ids) {
        recorded.addAll(ids);
    }

    List<EventId> recordedIds() {
        return List.copyOf(recorded);
    }
}
