-- Outbox schema, version 5, PostgreSQL: the inbox's per-aggregate high-water mark and its held events (R5.7),
-- and the exact events of each replay request (R9.4). Idempotent like V1.

-- What each consumer has passed of each aggregate: every version up to high_water was applied (or reported as a
-- gap). Retention never deletes these rows: an aggregate quiet for longer than the marks are kept must neither
-- look like a gap at its next version nor take a replay of an old version for a new one.
CREATE TABLE IF NOT EXISTS inbox_high_water (
    consumer        VARCHAR(100)  NOT NULL,
    aggregate_type  VARCHAR(100)  NOT NULL,
    aggregate_id    VARCHAR(200)  NOT NULL,
    high_water      BIGINT        NOT NULL,
    CONSTRAINT inbox_high_water_pk PRIMARY KEY (consumer, aggregate_type, aggregate_id)
);

-- Strict events a consumer holds until their earlier versions arrive, since when by the database's clock: the
-- gap window survives a restart and is the same on every server, and two consumers never share a hold.
CREATE TABLE IF NOT EXISTS inbox_hold (
    consumer    VARCHAR(100)  NOT NULL,
    event_id    UUID          NOT NULL,
    held_since  TIMESTAMP WITH TIME ZONE NOT NULL,
    CONSTRAINT inbox_hold_pk PRIMARY KEY (consumer, event_id)
);

-- Cleanup deletes holds whose event never came back (the broker gave it up) after the inbox retention.
CREATE INDEX IF NOT EXISTS inbox_hold_since_ix
    ON inbox_hold (held_since);

-- The exact events of a replay request, as previewed and requested (R9.2, R9.4): an approval replays these and
-- nothing else, whatever was delivered in the request's time range since.
CREATE TABLE IF NOT EXISTS outbox_replay_event (
    request_id  UUID     NOT NULL,
    item_no     INTEGER  NOT NULL,
    event_id    UUID     NOT NULL,
    CONSTRAINT outbox_replay_event_pk PRIMARY KEY (request_id, item_no)
);

-- An operator's replays over the approval window count together against the approval threshold.
CREATE INDEX IF NOT EXISTS outbox_replay_request_by_ix
    ON outbox_replay_request (requested_by, requested_at);
