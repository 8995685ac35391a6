-- Version 5, MariaDB: the inbox's per-aggregate high-water mark and its held events (R5.7), and the exact
-- events of each replay request (R9.4). Idempotent like V1.

-- What each consumer has passed of each aggregate. Retention never deletes these rows.
CREATE TABLE IF NOT EXISTS inbox_high_water (
    consumer        VARCHAR(100)  NOT NULL,
    aggregate_type  VARCHAR(100)  NOT NULL,
    aggregate_id    VARCHAR(200)  NOT NULL,
    high_water      BIGINT        NOT NULL,
    CONSTRAINT inbox_high_water_pk PRIMARY KEY (consumer, aggregate_type, aggregate_id)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_nopad_bin;

-- Strict events a consumer holds for their earlier versions, since when on the database's clock.
CREATE TABLE IF NOT EXISTS inbox_hold (
    consumer    VARCHAR(100)  NOT NULL,
    event_id    CHAR(36) CHARACTER SET ascii NOT NULL,
    held_since  DATETIME(6)   NOT NULL,
    CONSTRAINT inbox_hold_pk PRIMARY KEY (consumer, event_id)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_nopad_bin;

CREATE INDEX IF NOT EXISTS inbox_hold_since_ix
    ON inbox_hold (held_since);

CREATE TABLE IF NOT EXISTS outbox_replay_event (
    request_id  CHAR(36) CHARACTER SET ascii NOT NULL,
    item_no     INTEGER  NOT NULL,
    event_id    CHAR(36) CHARACTER SET ascii NOT NULL,
    CONSTRAINT outbox_replay_event_pk PRIMARY KEY (request_id, item_no)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_nopad_bin;

CREATE INDEX IF NOT EXISTS outbox_replay_request_by_ix
    ON outbox_replay_request (requested_by, requested_at);
