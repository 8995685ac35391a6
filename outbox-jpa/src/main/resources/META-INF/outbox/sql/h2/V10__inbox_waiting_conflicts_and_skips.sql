-- Outbox schema, version 10, H2. Idempotent like V1. The start-up reads inbox_skip.reason (the last table) to
-- tell whether the schema is complete.
-- The inbox's durable resequencer (R5.7): a strict event that arrives before the versions it follows waits here,
-- in the consumer's own database, written in the consumer's transaction, with everything needed to apply it later
-- (its ids, its body and the message properties its consumer reads). Its message is acknowledged; no thread waits.
-- When the missing version is applied, the waiting successors are applied after it, in order, in that transaction.
CREATE TABLE IF NOT EXISTS inbox_waiting (
    consumer           VARCHAR(100)  NOT NULL,
    event_id           UUID          NOT NULL,
    aggregate_type     VARCHAR(100)  NOT NULL,
    aggregate_id       VARCHAR(200)  NOT NULL,
    aggregate_version  BIGINT        NOT NULL,
    event_type         VARCHAR(100),
    schema_version     INTEGER,
    ordering           VARCHAR(20)   NOT NULL,
    payload            CHARACTER VARYING(1000000),
    properties         CHARACTER VARYING(1000000),
    trace_parent       VARCHAR(55),
    trace_state        VARCHAR(512),
    broker_id          VARCHAR(300),
    waiting_since      TIMESTAMP WITH TIME ZONE NOT NULL,
    -- A successor whose change failed when its turn came: it stays here, reported, until it comes again or an
    -- operator skips it; the version before it stays applied.
    failures           INTEGER       NOT NULL DEFAULT 0,
    last_error_class   VARCHAR(200),
    CONSTRAINT inbox_waiting_pk PRIMARY KEY (consumer, event_id),
    -- One waiting event per version: a second event id for a waiting version is a fork (R7.7), never a successor.
    CONSTRAINT inbox_waiting_version_uk UNIQUE (consumer, aggregate_type, aggregate_id, aggregate_version)
);

-- The gap report: the oldest waiting event of each consumer (R6.1).
CREATE INDEX IF NOT EXISTS inbox_waiting_since_ix
    ON inbox_waiting (consumer, waiting_since);

-- Forks (R7.7): an event at a version the consumer already applied (or already holds waiting) under another event
-- id, parked at the consumer, never applied, never absorbed as a duplicate, until an operator decides.
CREATE TABLE IF NOT EXISTS inbox_conflict (
    consumer           VARCHAR(100)  NOT NULL,
    event_id           UUID          NOT NULL,
    aggregate_type     VARCHAR(100)  NOT NULL,
    aggregate_id       VARCHAR(200)  NOT NULL,
    aggregate_version  BIGINT        NOT NULL,
    -- The event the consumer applied at that version; null where its inbox mark is past retention.
    applied_event_id   UUID         ,
    event_type         VARCHAR(100),
    broker_id          VARCHAR(300),
    found_at           TIMESTAMP WITH TIME ZONE NOT NULL,
    CONSTRAINT inbox_conflict_pk PRIMARY KEY (consumer, event_id)
);

-- An operator's audited decision to stop waiting for missing versions (R5.7): versions from_version to
-- to_version of the aggregate are passed over for this consumer; should one come later, it is reported as
-- skipped, not applied.
CREATE TABLE IF NOT EXISTS inbox_skip (
    consumer           VARCHAR(100)  NOT NULL,
    aggregate_type     VARCHAR(100)  NOT NULL,
    aggregate_id       VARCHAR(200)  NOT NULL,
    from_version       BIGINT        NOT NULL,
    to_version         BIGINT        NOT NULL,
    skipped_by         VARCHAR(100)  NOT NULL,
    reason             VARCHAR(1000) NOT NULL,
    skipped_at         TIMESTAMP WITH TIME ZONE NOT NULL,
    CONSTRAINT inbox_skip_pk PRIMARY KEY (consumer, aggregate_type, aggregate_id, from_version)
);
