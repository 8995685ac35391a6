package dev.outbox.internal.persistence;

import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;

/**
 * The dialect contract against the database a JDBC URL names: the kit for a team that adds a dialect or runs a
 * database no suite here runs. It needs an empty database (or schema) of its own: it installs the schema
 * scripts and deletes every outbox row before each test.
 *
 * <pre>
 * mvn -pl outbox-jpa test -Dtest=ConfiguredDatabaseContractTest -Dmaven.test.additionalClasspath=/path/to/driver.jar \
 *     -Ddialect.contract.url=jdbc:postgresql://db/outbox_check -Ddialect.contract.user=outbox \
 *     -Ddialect.contract.password=secret [-Ddialect.contract.dialect=postgresql]
 * </pre>
 *
 * On H2, give the URL {@code ;LOCK_TIMEOUT=10000}: the cases that make one transaction wait for another's lock
 * need more than H2's default.
 */
@EnabledIfSystemProperty(named = "dialect.contract.url", matches = ".+")
public class ConfiguredDatabaseContractTest extends DialectContract {

    /** Every table of the schema scripts, children first. */
    static final List<String> TABLES = List.of("outbox_content_change", "outbox_replay_event", "outbox_replay_request",
            "outbox_replay_requester", "outbox_audit", "inbox_hold", "inbox_high_water", "side_effect",
            "processed_event", "outbox_event");

    private Dialect dialect;

    @Override
    protected Dialect dialect() {
        return dialect;
    }

    @Override
    protected boolean skipsLockedRows() {
        return !"h2".equals(dialect.name());
    }

    @Override
    protected Connection openFresh() throws SQLException {
        Connection connection = connect();
        dialect = Dialect.of(System.getProperty("dialect.contract.dialect", "auto"),
                connection.getMetaData().getDatabaseProductName());
        for (String script : dialect.schemaScripts()) {
            SqlScript.load(script, getClass().getClassLoader()).run(connection);
        }
        try (Statement statement = connection.createStatement()) {
            for (String table : TABLES) {
                statement.executeUpdate("DELETE FROM " + table);
            }
        }
        return connection;
    }

    /** READ COMMITTED, as the outbox's datasource runs (the MariaDB dialect refuses to start with another level). */
    @Override
    protected Connection connect() throws SQLException {
        Connection connection = DriverManager.getConnection(url(), user(), password());
        connection.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
        return connection;
    }

    /** The database under test; a subclass that runs the kit on a database of its own overrides the three. */
    protected String url() {
        return System.getProperty("dialect.contract.url");
    }

    protected String user() {
        return System.getProperty("dialect.contract.user", "");
    }

    protected String password() {
        return System.getProperty("dialect.contract.password", "");
    }
}
