-- Outbox schema, version 7: one row per person who has requested a replay, locked while a request is decided,
-- so requests one person sends at the same moment (from any server) count each other's events against the
-- approval threshold (R9.4) instead of each seeing only what had committed before it.
CREATE TABLE IF NOT EXISTS outbox_replay_requester (
    requester VARCHAR(200) NOT NULL,
    CONSTRAINT pk_outbox_replay_requester PRIMARY KEY (requester)
);
