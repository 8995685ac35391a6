-- Version 4, MariaDB: the undelivered versions of an aggregate, for the strict-order check (R4.6) and a claim's
-- runs. Without partial indexes the state column follows the aggregate, so the check reads only this aggregate's
-- rows (the unique key of V1 serves it too).
CREATE INDEX IF NOT EXISTS outbox_event_undelivered_ix
    ON outbox_event (aggregate_type, aggregate_id, state, aggregate_version);
