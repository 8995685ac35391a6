-- Outbox schema, version 8.
-- The replay requests waiting for a second person, oldest first (R9.4): the approvers' list reads only these, not
-- the decided history.
CREATE INDEX IF NOT EXISTS outbox_replay_request_waiting_ix
    ON outbox_replay_request (requested_at, request_id)
    WHERE state = 'AWAITING_APPROVAL';

-- Last in this script, as the start-up reads this column to tell whether the schema is complete.
-- parked_at: when the publisher parked the row, on the database's clock (R4.5, R6.6), so an operator sees how long
-- an event has waited for repair. Null on rows parked before V8 and by a release older than V8 (a rolling upgrade
-- runs both). Kept after a resume as evidence, like attempts and last_error_class. Only when the column is missing:
-- an ALTER TABLE takes an exclusive lock, which a start-up that runs the scripts again must not queue for.
DO $$ BEGIN IF NOT EXISTS (SELECT 1 FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = 'outbox_event' AND column_name = 'parked_at') THEN ALTER TABLE outbox_event ADD COLUMN parked_at TIMESTAMP WITH TIME ZONE; END IF; END $$;
