-- The Kafka-fed services' tables (invoicing, loyalty), the same SQL on H2 and PostgreSQL.

-- One invoice per order, opened by OrderPlaced and settled by OrderPaid.
CREATE TABLE IF NOT EXISTS invoice (
    order_id      VARCHAR(36)    NOT NULL,
    amount        NUMERIC(12, 2) NOT NULL,
    status        VARCHAR(16)    NOT NULL,
    last_version  BIGINT         NOT NULL,
    CONSTRAINT invoice_pk PRIMARY KEY (order_id),
    CONSTRAINT invoice_status_ck CHECK (status IN ('OPEN', 'SETTLED'))
);

-- Every event the invoicing consumer applied, with the version the invoice was at just before: the ordering
-- tests read it (in order and complete means previous_version = version - 1 on every entry after the first).
CREATE TABLE IF NOT EXISTS invoice_entry (
    event_id          CHAR(36)       NOT NULL,
    order_id          VARCHAR(36)    NOT NULL,
    version           BIGINT         NOT NULL,
    previous_version  BIGINT,
    event_type        VARCHAR(100)   NOT NULL,
    applied_at        DATETIME(6) NOT NULL,
    CONSTRAINT invoice_entry_pk PRIMARY KEY (event_id)
);

-- One loyalty award per paid order (the loyalty consumer, on Reactive Messaging).
CREATE TABLE IF NOT EXISTS loyalty_points (
    order_id  VARCHAR(36) NOT NULL,
    event_id  CHAR(36)    NOT NULL,
    points    BIGINT      NOT NULL,
    CONSTRAINT loyalty_points_pk PRIMARY KEY (order_id)
);
