-- Outbox schema, version 8.
-- The replay requests waiting for a second person, oldest first (R9.4): the approvers' list reads only these, not
-- the decided history.
CREATE INDEX IF NOT EXISTS outbox_replay_request_waiting_ix
    ON outbox_replay_request (requested_at, request_id)
    WHERE state = 'AWAITING_APPROVAL';

-- Last in this script, as the start-up reads this column to tell whether the schema is complete.
-- parked_at: when the publisher parked the row, on the database's clock (R4.5, R6.6), so an operator sees how long
-- an event has waited for repair. Kept after a resume as evidence, like attempts and last_error_class. Null on rows
-- parked before V8 or by a release older than V8 (a rolling upgrade runs both; such a release re-parking a row this
-- one parked before leaves the earlier time). A nullable column without a default: PostgreSQL adds it without
-- rewriting the table, under a brief exclusive lock.
ALTER TABLE outbox_event ADD COLUMN IF NOT EXISTS parked_at TIMESTAMP WITH TIME ZONE;
