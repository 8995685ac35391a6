-- Version 13, MariaDB: a content change of a parked event waiting for a second person (R9.4, R6.6), with the body
-- before and after it, so the approver sees exactly this change as a diff and an approval applies it only to the body
-- it was asked against. Its request is a row of outbox_replay_request, counted with the replays.
-- The start-up reads this table to tell whether the schema is complete.
CREATE TABLE IF NOT EXISTS outbox_content_change (
    request_id             CHAR(36) CHARACTER SET ascii NOT NULL,
    event_id               CHAR(36) CHARACTER SET ascii NOT NULL,
    payload_before         MEDIUMTEXT,
    payload_ref_before     VARCHAR(1000),
    schema_version_before  INTEGER      NOT NULL,
    payload                MEDIUMTEXT,
    payload_ref            VARCHAR(1000),
    schema_version         INTEGER      NOT NULL,
    CONSTRAINT outbox_content_change_pk PRIMARY KEY (request_id)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_nopad_bin;
