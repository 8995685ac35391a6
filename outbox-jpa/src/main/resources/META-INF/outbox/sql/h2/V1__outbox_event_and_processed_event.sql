-- Outbox and inbox schema, version 1, H2 2.x (the embedded default).
-- Same tables, keys and names as postgresql/V1; H2 has no partial indexes, so the claim and cleanup
-- indexes lead with the state column instead.

CREATE TABLE IF NOT EXISTS outbox_event (
    event_id           UUID          NOT NULL,
    aggregate_type     VARCHAR(100)  NOT NULL,
    aggregate_id       VARCHAR(200)  NOT NULL,
    aggregate_version  BIGINT        NOT NULL,
    event_type         VARCHAR(100)  NOT NULL,
    schema_version     INTEGER       NOT NULL,
    payload            CHARACTER VARYING(1000000),
    payload_ref        VARCHAR(1000),
    created_at         TIMESTAMP WITH TIME ZONE NOT NULL,
    state              VARCHAR(16)   NOT NULL,
    attempts           INTEGER       DEFAULT 0 NOT NULL,
    next_attempt_at    TIMESTAMP WITH TIME ZONE NOT NULL,
    last_error_class   VARCHAR(200),
    claimed_by         VARCHAR(100),
    lease_version      BIGINT        DEFAULT 0 NOT NULL,
    lease_until        TIMESTAMP WITH TIME ZONE,
    delivered_at       TIMESTAMP WITH TIME ZONE,
    broker_message_id  VARCHAR(200),
    broker_partition   INTEGER,
    broker_offset      BIGINT,
    CONSTRAINT outbox_event_pk PRIMARY KEY (event_id),
    CONSTRAINT outbox_event_aggregate_version_uk UNIQUE (aggregate_type, aggregate_id, aggregate_version),
    CONSTRAINT outbox_event_version_ck CHECK (aggregate_version >= 1 AND schema_version >= 1),
    CONSTRAINT outbox_event_state_ck CHECK (state IN ('PENDING', 'DELIVERED', 'PARKED')),
    CONSTRAINT outbox_event_body_ck CHECK ((payload IS NULL) <> (payload_ref IS NULL))
);

CREATE INDEX IF NOT EXISTS outbox_event_due_ix
    ON outbox_event (state, next_attempt_at);

CREATE INDEX IF NOT EXISTS outbox_event_delivered_ix
    ON outbox_event (state, delivered_at, event_id);

CREATE INDEX IF NOT EXISTS outbox_event_parked_ix
    ON outbox_event (state, created_at);

CREATE TABLE IF NOT EXISTS processed_event (
    consumer           VARCHAR(100)  NOT NULL,
    event_id           UUID          NOT NULL,
    aggregate_type     VARCHAR(100),
    aggregate_id       VARCHAR(200),
    aggregate_version  BIGINT,
    processed_at       TIMESTAMP WITH TIME ZONE NOT NULL,
    retain_until       TIMESTAMP WITH TIME ZONE NOT NULL,
    duplicates         INTEGER       DEFAULT 0 NOT NULL,
    CONSTRAINT processed_event_pk PRIMARY KEY (consumer, event_id)
);

CREATE INDEX IF NOT EXISTS processed_event_retain_ix
    ON processed_event (retain_until);
