package dev.outbox.internal.persistence;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.UUID;

/** A new in-memory H2 database with every outbox schema script applied, for tests of the real SQL. */
public final class FreshH2 {

    private FreshH2() {
    }

    public static Connection open() throws SQLException {
        Connection connection = DriverManager.getConnection("jdbc:h2:mem:" + UUID.randomUUID(), "sa", "");
        for (String script : new H2Dialect().schemaScripts()) {
            SqlScript.load(script, FreshH2.class.getClassLoader()).run(connection);
        }
        return connection;
    }
}
