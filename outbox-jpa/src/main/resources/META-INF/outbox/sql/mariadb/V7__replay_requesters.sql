-- Version 7, MariaDB: one row per person who has requested a replay, locked while a request is decided (R9.4).
CREATE TABLE IF NOT EXISTS outbox_replay_requester (
    requester VARCHAR(200) NOT NULL,
    CONSTRAINT pk_outbox_replay_requester PRIMARY KEY (requester)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_nopad_bin;
