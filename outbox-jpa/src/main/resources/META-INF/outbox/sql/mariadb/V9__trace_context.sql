-- Version 9, MariaDB.
-- The W3C trace context of the span that recorded the event (R6.7): the publisher sends it as the message's
-- traceparent and tracestate headers, so the consumer's span continues the recording request's trace. Null on
-- events recorded outside a traced span, with tracing off, or by a release older than V9 (a rolling upgrade runs
-- both). Ids and vendor state only, never a payload field.
-- One statement for both columns, so the upgrade waits for the table's lock once. It is the last in this script:
-- the start-up reads trace_state to tell whether the schema is complete.
ALTER TABLE outbox_event
    ADD COLUMN IF NOT EXISTS trace_parent VARCHAR(55) NULL,
    ADD COLUMN IF NOT EXISTS trace_state VARCHAR(512) NULL;
