-- Outbox and inbox schema, version 1, PostgreSQL.
-- Run it by hand (psql -f) or hand this folder to Flyway or Liquibase; the file name follows Flyway's
-- V<n>__<name>.sql convention. With outbox.schema.create=true the server runs it at start when
-- outbox_event is missing. Never edit a released version: add V2, V3, ...

CREATE TABLE IF NOT EXISTS outbox_event (
    event_id           UUID          NOT NULL,
    aggregate_type     VARCHAR(100)  NOT NULL,
    aggregate_id       VARCHAR(200)  NOT NULL,
    aggregate_version  BIGINT        NOT NULL,
    event_type         VARCHAR(100)  NOT NULL,
    schema_version     INTEGER       NOT NULL,
    payload            TEXT,
    payload_ref        VARCHAR(1000),
    created_at         TIMESTAMP WITH TIME ZONE NOT NULL,
    state              VARCHAR(16)   NOT NULL,
    attempts           INTEGER       NOT NULL DEFAULT 0,
    next_attempt_at    TIMESTAMP WITH TIME ZONE NOT NULL,
    last_error_class   VARCHAR(200),
    claimed_by         VARCHAR(100),
    lease_version      BIGINT        NOT NULL DEFAULT 0,
    lease_until        TIMESTAMP WITH TIME ZONE,
    delivered_at       TIMESTAMP WITH TIME ZONE,
    broker_message_id  VARCHAR(200),
    broker_partition   INTEGER,
    broker_offset      BIGINT,
    CONSTRAINT outbox_event_pk PRIMARY KEY (event_id),
    -- R3.3: one event per aggregate version; also serves the strict-order check of earlier versions (R4.6).
    CONSTRAINT outbox_event_aggregate_version_uk UNIQUE (aggregate_type, aggregate_id, aggregate_version),
    CONSTRAINT outbox_event_version_ck CHECK (aggregate_version >= 1 AND schema_version >= 1),
    CONSTRAINT outbox_event_state_ck CHECK (state IN ('PENDING', 'DELIVERED', 'PARKED')),
    CONSTRAINT outbox_event_body_ck CHECK ((payload IS NULL) <> (payload_ref IS NULL))
);

-- The claim query reads only due rows: a partial index holds pending rows alone, so delivered history
-- does not slow it down (R4.1; no full scan at a million delivered rows).
CREATE INDEX IF NOT EXISTS outbox_event_due_ix
    ON outbox_event (next_attempt_at)
    WHERE state = 'PENDING';

-- Cleanup deletes delivered rows by confirm time in small batches with a stable cursor (R8.1).
CREATE INDEX IF NOT EXISTS outbox_event_delivered_ix
    ON outbox_event (delivered_at, event_id)
    WHERE state = 'DELIVERED';

-- Parked rows are listed for repair (R6.6).
CREATE INDEX IF NOT EXISTS outbox_event_parked_ix
    ON outbox_event (created_at)
    WHERE state = 'PARKED';

-- The inbox: (consumer, event id) so two consumers in one database never collide (R5.1).
CREATE TABLE IF NOT EXISTS processed_event (
    consumer           VARCHAR(100)  NOT NULL,
    event_id           UUID          NOT NULL,
    aggregate_type     VARCHAR(100),
    aggregate_id       VARCHAR(200),
    aggregate_version  BIGINT,
    processed_at       TIMESTAMP WITH TIME ZONE NOT NULL,
    -- R5.6: kept at least for the broker's redelivery window plus the disaster-recovery window.
    retain_until       TIMESTAMP WITH TIME ZONE NOT NULL,
    duplicates         INTEGER       NOT NULL DEFAULT 0,
    CONSTRAINT processed_event_pk PRIMARY KEY (consumer, event_id)
);

CREATE INDEX IF NOT EXISTS processed_event_retain_ix
    ON processed_event (retain_until);
