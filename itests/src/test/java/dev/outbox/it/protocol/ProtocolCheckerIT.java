package dev.outbox.it.protocol;

import dev.outbox.internal.persistence.Dialect;
import dev.outbox.internal.persistence.MariaDbDialect;
import dev.outbox.internal.persistence.PostgreSqlDialect;
import dev.outbox.internal.persistence.SqlScript;
import dev.outbox.internal.protocol.ProtocolChecker;
import dev.outbox.internal.protocol.ProtocolCheckerRun;
import dev.outbox.it.support.Settings;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The randomized protocol checker (outbox-jpa's ProtocolChecker) on the real test PostgreSQL (in a schema of its
 * own) and on the test MariaDB (in a database of its own). The same properties as on H2: {@code -Dchecker.seconds},
 * {@code -Dchecker.seed} with {@code -Dchecker.steps}, {@code -Dchecker.mutation}.
 */
@EnabledIfSystemProperty(named = "it.db", matches = "postgresql|mariadb")
class ProtocolCheckerIT {

    private final boolean mariadb = Settings.required("it.db").equals("mariadb");
    private final Dialect dialect = mariadb ? new MariaDbDialect() : new PostgreSqlDialect();
    private final String schema = "checker_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);

    /** A connection to the test database itself, outside the checker's schema. */
    private Connection connectToDatabase() throws SQLException {
        return DriverManager.getConnection(Settings.required("it.jdbc.url"), Settings.required("it.jdbc.user"),
                System.getProperty("it.jdbc.password", ""));
    }

    private Connection connect() {
        try {
            Connection c = connectToDatabase();
            try (Statement statement = c.createStatement()) {
                statement.execute(mariadb ? "USE " + schema : "SET search_path TO " + schema);
            }
            return c;
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    @AfterEach
    void drop() throws SQLException {
        try (Connection c = connectToDatabase(); Statement statement = c.createStatement()) {
            statement.execute(mariadb ? "DROP DATABASE " + schema : "DROP SCHEMA " + schema + " CASCADE");
        }
    }

    @Test
    @Timeout(value = 20, unit = TimeUnit.MINUTES)
    void everyCommittedEventIsAppliedOncePerConsumerInOrderWhateverTheFaults() throws SQLException {
        try (Connection c = connectToDatabase(); Statement statement = c.createStatement()) {
            statement.execute("CREATE SCHEMA " + schema); // MariaDB: a synonym of CREATE DATABASE
        }
        try (Connection c = connect()) {
            for (String script : dialect.schemaScripts()) {
                SqlScript.load(script, getClass().getClassLoader()).run(c);
            }
        }
        ProtocolChecker.Result result = ProtocolCheckerRun.run(this::connect, dialect);
        assertEquals(List.of(), result.violations(), "protocol violations; replay with " + result.replay());
        assertTrue(result.events() > 100, "the run recorded enough events to mean something: " + result.events());
    }
}
