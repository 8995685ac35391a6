-- Version 6, MariaDB: a new row is due at the database's time, not at the recording server's (the recorder
-- leaves next_attempt_at to this default). Idempotent.
ALTER TABLE outbox_event ALTER COLUMN next_attempt_at SET DEFAULT CURRENT_TIMESTAMP(6);
