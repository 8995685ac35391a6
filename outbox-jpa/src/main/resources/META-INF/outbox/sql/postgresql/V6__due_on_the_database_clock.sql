-- Outbox schema, version 6: a new row is due at the database's time, not at the recording server's. The recorder
-- leaves next_attempt_at to this default, so a server whose clock runs ahead does not delay its own events
-- (claims, leases and retries already compare with the database's clock). Only when the default is missing: an
-- ALTER TABLE takes an exclusive lock, which a start-up that runs the scripts again must not queue for.
DO $$ BEGIN IF NOT EXISTS (SELECT 1 FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = 'outbox_event' AND column_name = 'next_attempt_at' AND column_default IS NOT NULL) THEN ALTER TABLE outbox_event ALTER COLUMN next_attempt_at SET DEFAULT CURRENT_TIMESTAMP; END IF; END $$;
