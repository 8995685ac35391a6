-- Outbox schema, version 12, H2.
-- One content per event id across brokers (R6.6): the transports that accepted the event, or may have (an unknown
-- outcome), on an attempt that did not deliver it everywhere, as ",jms,kafka,". Written by the confirm of a retry, a
-- park or a send cut short, and of a delivery whose lease was lost; never on the delivered path. A repair that
-- changes the body of a parked event is refused once any transport accepted it: that transport's consumers may
-- already have applied the old body. Null on rows every transport delivered at once, on rows no transport took, and
-- on rows a release older than V12 confirmed (a rolling upgrade runs both).
-- The start-up reads this column to tell whether the schema is complete.
ALTER TABLE outbox_event ADD COLUMN IF NOT EXISTS accepted_by VARCHAR(200);
