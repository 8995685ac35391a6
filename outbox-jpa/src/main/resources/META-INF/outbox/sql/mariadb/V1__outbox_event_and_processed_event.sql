-- Outbox and inbox schema, version 1, MariaDB 10.6+ (InnoDB, utf8mb4).
-- Same tables, keys and names as postgresql/V1. Event ids are UUIDs in text form (CHAR(36), ASCII); times are
-- DATETIME(6) in UTC, which the outbox's connections must use (docs/settings.md: MariaDB). The collation is binary
-- and NO PAD, so 'a' and 'a ' are two aggregates, as on PostgreSQL. MariaDB has no partial indexes, so the claim and
-- cleanup indexes lead with the state column instead.

CREATE TABLE IF NOT EXISTS outbox_event (
    event_id           CHAR(36) CHARACTER SET ascii NOT NULL,
    aggregate_type     VARCHAR(100)  NOT NULL,
    aggregate_id       VARCHAR(200)  NOT NULL,
    aggregate_version  BIGINT        NOT NULL,
    event_type         VARCHAR(100)  NOT NULL,
    schema_version     INTEGER       NOT NULL,
    payload            MEDIUMTEXT,
    payload_ref        VARCHAR(1000),
    created_at         DATETIME(6)   NOT NULL,
    state              VARCHAR(16)   NOT NULL,
    attempts           INTEGER       NOT NULL DEFAULT 0,
    -- Due at the database's time unless given (what V6 adds on the other databases; R4.3).
    next_attempt_at    DATETIME(6)   NOT NULL DEFAULT CURRENT_TIMESTAMP(6),
    last_error_class   VARCHAR(200),
    claimed_by         VARCHAR(100),
    lease_version      BIGINT        NOT NULL DEFAULT 0,
    lease_until        DATETIME(6),
    delivered_at       DATETIME(6),
    broker_message_id  VARCHAR(200),
    broker_partition   INTEGER,
    broker_offset      BIGINT,
    CONSTRAINT outbox_event_pk PRIMARY KEY (event_id),
    -- R3.3: one event per aggregate version; also serves the strict-order check of earlier versions (R4.6).
    CONSTRAINT outbox_event_aggregate_version_uk UNIQUE (aggregate_type, aggregate_id, aggregate_version),
    CONSTRAINT outbox_event_version_ck CHECK (aggregate_version >= 1 AND schema_version >= 1),
    CONSTRAINT outbox_event_state_ck CHECK (state IN ('PENDING', 'DELIVERED', 'PARKED')),
    CONSTRAINT outbox_event_body_ck CHECK ((payload IS NULL) <> (payload_ref IS NULL))
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_nopad_bin;

-- The claim reads due pending rows in due order (R4.1).
CREATE INDEX IF NOT EXISTS outbox_event_due_ix
    ON outbox_event (state, next_attempt_at);

-- Cleanup deletes delivered rows by confirm time in small batches with a stable cursor (R8.1).
CREATE INDEX IF NOT EXISTS outbox_event_delivered_ix
    ON outbox_event (state, delivered_at, event_id);

-- Parked rows are listed for repair (R6.6).
CREATE INDEX IF NOT EXISTS outbox_event_parked_ix
    ON outbox_event (state, created_at);

-- The inbox: (consumer, event id) so two consumers in one database never collide (R5.1).
CREATE TABLE IF NOT EXISTS processed_event (
    consumer           VARCHAR(100)  NOT NULL,
    event_id           CHAR(36) CHARACTER SET ascii NOT NULL,
    aggregate_type     VARCHAR(100),
    aggregate_id       VARCHAR(200),
    aggregate_version  BIGINT,
    processed_at       DATETIME(6)   NOT NULL,
    -- R5.6: kept at least for the broker's redelivery window plus the disaster-recovery window.
    retain_until       DATETIME(6)   NOT NULL,
    duplicates         INTEGER       NOT NULL DEFAULT 0,
    CONSTRAINT processed_event_pk PRIMARY KEY (consumer, event_id)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_nopad_bin;

CREATE INDEX IF NOT EXISTS processed_event_retain_ix
    ON processed_event (retain_until);
