package dev.outbox.it.sql;

import dev.outbox.internal.persistence.ConfiguredDatabaseContractTest;
import dev.outbox.internal.persistence.DialectContract;
import dev.outbox.it.support.Settings;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * The dialect contract (outbox-jpa's {@link DialectContract}) on the real test PostgreSQL, run the way a team runs
 * the kit on its own database ({@link ConfiguredDatabaseContractTest}): on the test cluster's database
 * {@code outbox_contract}, which nothing else uses, with the schema scripts installed again before each case (they
 * are idempotent) and every outbox row deleted; FOR UPDATE SKIP LOCKED claimers race too.
 */
@EnabledIfSystemProperty(named = "it.db", matches = "postgresql")
class PostgreSqlDialectContractIT extends ConfiguredDatabaseContractTest {

    @Override
    protected String url() {
        String url = Settings.required("it.jdbc.url");
        String contract = url.replaceFirst("/outbox(\\?|$)", "/outbox_contract$1");
        if (contract.equals(url)) {
            throw new IllegalStateException("it.jdbc.url does not name the database outbox: " + url);
        }
        return contract;
    }

    @Override
    protected String user() {
        return Settings.required("it.jdbc.user");
    }

    @Override
    protected String password() {
        return System.getProperty("it.jdbc.password", "");
    }
}
