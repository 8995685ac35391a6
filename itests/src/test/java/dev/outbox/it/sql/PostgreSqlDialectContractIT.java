package dev.outbox.it.sql;

import dev.outbox.internal.persistence.Dialect;
import dev.outbox.internal.persistence.DialectContract;
import dev.outbox.internal.persistence.PostgreSqlDialect;
import dev.outbox.internal.persistence.SqlScript;
import dev.outbox.it.support.Settings;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.UUID;

/**
 * The dialect contract (outbox-jpa's {@link DialectContract}) on the real test PostgreSQL, each test in a schema of
 * its own, with FOR UPDATE SKIP LOCKED claimers racing.
 */
@EnabledIfSystemProperty(named = "it.db", matches = "postgresql")
class PostgreSqlDialectContractIT extends DialectContract {

    private String schema;

    @Override
    protected Dialect dialect() {
        return new PostgreSqlDialect();
    }

    @Override
    protected Connection openFresh() throws SQLException {
        schema = "contract_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
        Connection connection = connect();
        try (Statement statement = connection.createStatement()) {
            statement.execute("CREATE SCHEMA " + schema);
        }
        // Twice: the scripts are idempotent, a second run changes nothing.
        for (int run = 0; run < 2; run++) {
            for (String script : dialect().schemaScripts()) {
                SqlScript.load(script, getClass().getClassLoader()).run(connection);
            }
        }
        return connection;
    }

    @Override
    protected Connection connect() throws SQLException {
        Connection connection = DriverManager.getConnection(Settings.required("it.jdbc.url"),
                Settings.required("it.jdbc.user"), System.getProperty("it.jdbc.password", ""));
        try (Statement statement = connection.createStatement()) {
            statement.execute("SET search_path TO " + schema);
        }
        return connection;
    }

    @Override
    protected void dropFresh() throws SQLException {
        try (Connection connection = connect(); Statement statement = connection.createStatement()) {
            statement.execute("DROP SCHEMA " + schema + " CASCADE");
        }
    }
}
