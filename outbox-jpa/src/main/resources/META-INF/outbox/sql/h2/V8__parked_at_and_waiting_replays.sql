-- Outbox schema, version 8.
-- The replay requests waiting for a second person, oldest first (R9.4); H2 has no partial index, so the state leads.
CREATE INDEX IF NOT EXISTS outbox_replay_request_waiting_ix
    ON outbox_replay_request (state, requested_at, request_id);

-- Last in this script, as the start-up reads this column to tell whether the schema is complete.
-- parked_at: when the publisher parked the row, on the database's clock (R4.5, R6.6), so an operator sees how long
-- an event has waited for repair. Kept after a resume as evidence, like attempts and last_error_class. Null on rows
-- parked before V8 or by a release older than V8 (a rolling upgrade runs both; such a release re-parking a row this
-- one parked before leaves the earlier time).
ALTER TABLE outbox_event ADD COLUMN IF NOT EXISTS parked_at TIMESTAMP WITH TIME ZONE;
