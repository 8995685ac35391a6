package dev.outbox.it.support;

import dev.outbox.internal.persistence.RecordedRow;

import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.UUID;

/**
 * Two outbox rows as a failed send and a park leave them, of an event type no consumer reads, so the failing and
 * parked gauges have series in a scrape: the failing one is due only in an hour (no publisher takes it meanwhile),
 * the parked one waits for a repair that never comes. {@link #close} deletes both.
 */
public final class MetricsProbe implements AutoCloseable {

    public static final String TYPE = "MetricsProbe";
    public static final String CONSUMER = "metrics-probe";

    private final OutboxDatabase db;
    private final String aggregate = "probe-" + UUID.randomUUID();

    private MetricsProbe(OutboxDatabase db) {
        this.db = db;
    }

    public static MetricsProbe plant(OutboxDatabase db) {
        MetricsProbe probe = new MetricsProbe(db);
        UUID failing = db.using(RecordedRow.pending(TYPE, probe.aggregate + "-failing", 1, TYPE).attempts(1)
                .dueAt(OffsetDateTime.now(ZoneOffset.UTC).plusHours(1))::insert);
        db.execute("UPDATE outbox_event SET last_error_class = 'ProbeFailure' WHERE event_id = ?", failing);
        db.using(RecordedRow.pending(TYPE, probe.aggregate + "-parked", 1, TYPE).parked()::insert);
        db.execute("INSERT INTO inbox_waiting (consumer, event_id, aggregate_type, aggregate_id, aggregate_version,"
                + " ordering, waiting_since) VALUES (?, ?, ?, ?, 3, 'strict', CURRENT_TIMESTAMP)", CONSUMER,
                UUID.randomUUID(), TYPE, probe.aggregate);
        db.execute("INSERT INTO inbox_conflict (consumer, event_id, aggregate_type, aggregate_id, aggregate_version,"
                + " applied_event_id, found_at) VALUES (?, ?, ?, ?, 1, ?, CURRENT_TIMESTAMP)", CONSUMER,
                UUID.randomUUID(), TYPE, probe.aggregate, UUID.randomUUID());
        return probe;
    }

    @Override
    public void close() {
        db.execute("DELETE FROM outbox_event WHERE aggregate_type = ? AND aggregate_id LIKE ?", TYPE, aggregate + "-%");
        db.execute("DELETE FROM inbox_waiting WHERE consumer = ?", CONSUMER);
        db.execute("DELETE FROM inbox_conflict WHERE consumer = ?", CONSUMER);
    }
}
