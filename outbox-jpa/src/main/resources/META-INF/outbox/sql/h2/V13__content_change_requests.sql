-- Outbox schema, version 13, H2.
-- A content change of a parked event waits here for a second person when one person's re-sends and changes over the
-- approval window pass the threshold (R9.4, R6.6); its request is a row of outbox_replay_request, counted with the
-- replays. The body before and after the change are both kept: the approver is shown exactly this change as a diff,
-- and an approval applies it only if the event still holds the body it was asked against.
-- The start-up reads this table to tell whether the schema is complete.
CREATE TABLE IF NOT EXISTS outbox_content_change (
    request_id             UUID                  NOT NULL,
    event_id               UUID                  NOT NULL,
    payload_before         CHARACTER VARYING(1000000),
    payload_ref_before     VARCHAR(1000),
    schema_version_before  INTEGER               NOT NULL,
    payload                CHARACTER VARYING(1000000),
    payload_ref            VARCHAR(1000),
    schema_version         INTEGER               NOT NULL,
    CONSTRAINT outbox_content_change_pk PRIMARY KEY (request_id)
);
