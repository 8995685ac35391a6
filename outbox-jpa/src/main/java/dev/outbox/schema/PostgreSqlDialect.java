package dev.outbox.schema;

/** PostgreSQL 12 and later. */
public final class PostgreSqlDialect implements Dialect {

    @Override
    public String name() {
        return "postgresql";
    }
}
