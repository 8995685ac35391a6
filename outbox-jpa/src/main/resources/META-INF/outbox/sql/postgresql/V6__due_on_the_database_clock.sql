-- Outbox schema, version 6: a new row is due at the database's time, not at the recording server's. The recorder
-- leaves next_attempt_at to this default, so a server whose clock runs ahead does not delay its own events
-- (claims, leases and retries already compare with the database's clock).
ALTER TABLE outbox_event ALTER COLUMN next_attempt_at SET DEFAULT CURRENT_TIMESTAMP;
