-- Version 2, MariaDB: per-aggregate version tracking in the inbox (R5.7) and the side-effect ledger (R5.4).
-- Idempotent like V1, so create-at-start can run every script at every start.

-- The inbox asks for the highest version a consumer applied per aggregate.
CREATE INDEX IF NOT EXISTS processed_event_aggregate_ix
    ON processed_event (consumer, aggregate_type, aggregate_id, aggregate_version);

CREATE TABLE IF NOT EXISTS side_effect (
    consumer      VARCHAR(100)  NOT NULL,
    effect_key    VARCHAR(200)  NOT NULL,
    event_id      CHAR(36) CHARACTER SET ascii NOT NULL,
    effect        VARCHAR(100)  NOT NULL,
    state         VARCHAR(16)   NOT NULL,
    attempts      INTEGER       NOT NULL,
    external_ref  VARCHAR(200),
    updated_at    DATETIME(6)   NOT NULL,
    CONSTRAINT side_effect_pk PRIMARY KEY (consumer, effect_key),
    CONSTRAINT side_effect_state_ck CHECK (state IN ('STARTED', 'SUCCEEDED', 'FAILED'))
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_nopad_bin;
