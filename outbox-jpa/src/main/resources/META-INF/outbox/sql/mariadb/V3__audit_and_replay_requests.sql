-- Version 3, MariaDB: the operators' audit trail (R6.6, R9.2-R9.4) and replay requests awaiting a second
-- approver. Idempotent like V1 and V2.

-- One row per administrative action: who, when, what, on which event or replay request. Never the payload.
CREATE TABLE IF NOT EXISTS outbox_audit (
    audit_id      CHAR(36) CHARACTER SET ascii NOT NULL,
    at            DATETIME(6)   NOT NULL,
    actor         VARCHAR(200)  NOT NULL,
    action        VARCHAR(40)   NOT NULL,
    event_id      CHAR(36) CHARACTER SET ascii,
    request_id    CHAR(36) CHARACTER SET ascii,
    detail        VARCHAR(2000) NOT NULL,
    CONSTRAINT outbox_audit_pk PRIMARY KEY (audit_id)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_nopad_bin;

CREATE INDEX IF NOT EXISTS outbox_audit_at_ix
    ON outbox_audit (at, audit_id);

CREATE INDEX IF NOT EXISTS outbox_audit_event_ix
    ON outbox_audit (event_id);

CREATE TABLE IF NOT EXISTS outbox_replay_request (
    request_id      CHAR(36) CHARACTER SET ascii NOT NULL,
    requested_at    DATETIME(6)   NOT NULL,
    requested_by    VARCHAR(200)  NOT NULL,
    reason          VARCHAR(1000) NOT NULL,
    selection       VARCHAR(4000) NOT NULL,
    event_count     INTEGER       NOT NULL,
    state           VARCHAR(20)   NOT NULL,
    decided_by      VARCHAR(200),
    decided_at      DATETIME(6),
    CONSTRAINT outbox_replay_request_pk PRIMARY KEY (request_id),
    CONSTRAINT outbox_replay_request_state_ck CHECK (state IN ('AWAITING_APPROVAL', 'EXECUTED', 'REJECTED'))
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_nopad_bin;

-- R8.3: shadow mode is stamped on each event when it is recorded.
ALTER TABLE outbox_event ADD COLUMN IF NOT EXISTS publish_mode VARCHAR(16) NOT NULL DEFAULT 'PUBLISH';
