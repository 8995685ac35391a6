-- Outbox schema, version 11.
-- Consumers that receive only some of an aggregate's event types (R5.7). previous_versions: for each event type that
-- occurs earlier in the aggregate's history, the latest version of it below this event ("OrderPlaced=1,OrderPaid=4"),
-- set at record time and sent as the outboxPreviousVersions header. Empty on an aggregate's first event; null on
-- rows recorded by a release older than V11 (a rolling upgrade runs both).
ALTER TABLE outbox_event ADD COLUMN IF NOT EXISTS previous_versions VARCHAR(2000);
-- At a consumer, the version an event waits for (the latest earlier version of the types it receives); null means
-- the version just before it, as for every consumer that receives all types.
ALTER TABLE processed_event ADD COLUMN IF NOT EXISTS previous_version BIGINT;
-- Last in this script, as the start-up reads this column to tell whether the schema is complete.
ALTER TABLE inbox_waiting ADD COLUMN IF NOT EXISTS previous_version BIGINT;
