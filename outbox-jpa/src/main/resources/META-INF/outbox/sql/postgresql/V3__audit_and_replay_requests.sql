-- Version 3: the operators' audit trail (R6.6, R9.2-R9.4) and replay requests awaiting a second approver.
-- Idempotent like V1 and V2.

-- One row per administrative action: who, when, what, on which event or replay request. Never the payload:
-- a repair records the old payload's size and SHA-256 and the failure it replaced, as evidence.
CREATE TABLE IF NOT EXISTS outbox_audit (
    audit_id      UUID          NOT NULL,
    at            TIMESTAMP WITH TIME ZONE NOT NULL,
    actor         VARCHAR(200)  NOT NULL,
    action        VARCHAR(40)   NOT NULL,
    event_id      UUID,
    request_id    UUID,
    detail        VARCHAR(2000) NOT NULL,
    CONSTRAINT outbox_audit_pk PRIMARY KEY (audit_id)
);

CREATE INDEX IF NOT EXISTS outbox_audit_at_ix
    ON outbox_audit (at, audit_id);

CREATE INDEX IF NOT EXISTS outbox_audit_event_ix
    ON outbox_audit (event_id);

-- A replay larger than outbox.replay.approval-threshold waits here until a second, different person with
-- the approver role approves it (R9.4). The selection is stored as the request made it, so the approver
-- approves exactly what was previewed.
CREATE TABLE IF NOT EXISTS outbox_replay_request (
    request_id      UUID          NOT NULL,
    requested_at    TIMESTAMP WITH TIME ZONE NOT NULL,
    requested_by    VARCHAR(200)  NOT NULL,
    reason          VARCHAR(1000) NOT NULL,
    selection       VARCHAR(4000) NOT NULL,
    event_count     INTEGER       NOT NULL,
    state           VARCHAR(20)   NOT NULL,
    decided_by      VARCHAR(200),
    decided_at      TIMESTAMP WITH TIME ZONE,
    CONSTRAINT outbox_replay_request_pk PRIMARY KEY (request_id),
    CONSTRAINT outbox_replay_request_state_ck CHECK (state IN ('AWAITING_APPROVAL', 'EXECUTED', 'REJECTED'))
);

-- Shadow mode (R8.3): PUBLISH, or SHADOW when the event was recorded while its type's old publishing path
-- still sent it; the publisher then only reports what it would send. Bound per event at record time, so a
-- switch-over never sends one command's event by both paths. Rows of older versions are PUBLISH.
ALTER TABLE outbox_event ADD COLUMN IF NOT EXISTS publish_mode VARCHAR(16) DEFAULT 'PUBLISH' NOT NULL;
