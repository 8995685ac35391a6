-- Outbox schema, version 4, PostgreSQL: the strict-order check reads undelivered rows only.
-- The claim takes an event of a strict type only when no earlier version of its aggregate is undelivered
-- (R4.6). Through the unique key that check walked every earlier version, delivered ones included, so its
-- cost grew with an aggregate's history, and a deep backlog (a 1,000,000-event benchmark drain, issue 8)
-- spent seconds per claim on it. This partial index holds undelivered rows alone: one probe answers.

CREATE INDEX IF NOT EXISTS outbox_event_undelivered_ix
    ON outbox_event (aggregate_type, aggregate_id, aggregate_version)
    WHERE state <> 'DELIVERED';
