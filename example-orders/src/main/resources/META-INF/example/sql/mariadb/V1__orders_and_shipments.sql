-- The same tables on MariaDB: times as UTC DATETIME(6), event ids as text (docs/settings.md: Databases).
-- The example's business tables, the same SQL on H2 and PostgreSQL. The outbox's own tables come from outbox-jpa's scripts.

CREATE TABLE IF NOT EXISTS orders (
    order_id     VARCHAR(36)    NOT NULL,
    customer_id  VARCHAR(100)   NOT NULL,
    amount       NUMERIC(12, 2) NOT NULL,
    status       VARCHAR(16)    NOT NULL,
    version      BIGINT         NOT NULL,
    placed_at    DATETIME(6) NOT NULL,
    paid_at      DATETIME(6),
    CONSTRAINT orders_pk PRIMARY KEY (order_id),
    CONSTRAINT orders_amount_ck CHECK (amount > 0),
    CONSTRAINT orders_status_ck CHECK (status IN ('PLACED', 'PAID'))
);

-- One shipment per paid order: the shipping consumer's business key.
CREATE TABLE IF NOT EXISTS shipment (
    shipment_id  VARCHAR(36)    NOT NULL,
    order_id     VARCHAR(36)    NOT NULL,
    -- the OrderPaid event that created it: tells a redelivery (same event) from a real conflict (R5.2)
    event_id     CHAR(36)       NOT NULL,
    created_at   DATETIME(6) NOT NULL,
    CONSTRAINT shipment_pk PRIMARY KEY (shipment_id),
    CONSTRAINT shipment_order_uk UNIQUE (order_id)
);
