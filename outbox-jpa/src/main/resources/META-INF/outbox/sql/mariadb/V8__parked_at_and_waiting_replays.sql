-- Version 8, MariaDB.
-- The replay requests waiting for a second person, oldest first (R9.4); no partial index here, so the state leads.
CREATE INDEX IF NOT EXISTS outbox_replay_request_waiting_ix
    ON outbox_replay_request (state, requested_at, request_id);

-- Last in this script, as the start-up reads this column to tell whether the schema is complete.
-- parked_at: when the publisher parked the row, on the database's clock in UTC like every time here (R4.5, R6.6).
-- Null on rows parked before V8 and by a release older than V8 (a rolling upgrade runs both); kept after a resume as
-- evidence. Only when the column is missing: an ALTER at every start would wait for, and then hold up, every
-- transaction on outbox_event.
BEGIN NOT ATOMIC IF NOT EXISTS (SELECT 1 FROM information_schema.columns WHERE table_schema = DATABASE() AND table_name = 'outbox_event' AND column_name = 'parked_at') THEN ALTER TABLE outbox_event ADD COLUMN parked_at DATETIME(6) NULL; END IF; END;
