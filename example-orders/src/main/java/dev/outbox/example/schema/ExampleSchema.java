package dev.outbox.example.schema;

import jakarta.annotation.Resource;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.event.Startup;

import javax.sql.DataSource;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Locale;

/**
 * Creates the example's business tables at start when they are missing. It is an example: a real service runs
 * its migrations with its own tool (Flyway, Liquibase), and the outbox's tables with the outbox's scripts.
 */
@ApplicationScoped
public class ExampleSchema {

    /** The example's persistence unit names no datasource, so it runs on the server's default one too. */
    @Resource(lookup = "java:comp/DefaultDataSource")
    DataSource dataSource;

    void createAtStart(@Observes Startup startup) {
        try (Connection connection = dataSource.getConnection()) {
            // One script per step: SQL that H2 and PostgreSQL share, and MariaDB's own types in mariadb/.
            String folder = connection.getMetaData().getDatabaseProductName().toLowerCase(java.util.Locale.ROOT)
                    .startsWith("mariadb") ? "META-INF/example/sql/mariadb/" : "META-INF/example/sql/";
            if (!tableExists(connection, "orders")) {
                run(connection, folder + "V1__orders_and_shipments.sql");
            }
            if (!tableExists(connection, "loyalty_points")) {
                run(connection, folder + "V2__invoices.sql");
            }
        } catch (SQLException | IOException e) {
            throw new IllegalStateException("cannot create the example's tables", e);
        }
    }

    /** Runs a script of plain statements separated by semicolons; lines starting with -- are comments. */
    private static void run(Connection connection, String resource) throws IOException, SQLException {
        String text;
        try (InputStream in = ExampleSchema.class.getClassLoader().getResourceAsStream(resource)) {
            if (in == null) {
                throw new IOException("missing " + resource);
            }
            text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        StringBuilder uncommented = new StringBuilder();
        for (String line : text.split("\n")) {
            if (!line.strip().startsWith("--")) {
                uncommented.append(line).append('\n');
            }
        }
        try (Statement statement = connection.createStatement()) {
            for (String sql : uncommented.toString().split(";")) {
                if (!sql.isBlank()) {
                    statement.execute(sql);
                }
            }
        }
    }

    /**
     * Only the connection's own catalog and schema count: MariaDB calls its databases catalogs, and a lookup without
     * one finds the table in any database on the server and leaves this one without its tables.
     */
    private static boolean tableExists(Connection connection, String table) throws SQLException {
        DatabaseMetaData metaData = connection.getMetaData();
        for (String name : new String[] {table, table.toUpperCase(Locale.ROOT)}) {
            try (ResultSet tables = metaData.getTables(connection.getCatalog(), connection.getSchema(), name,
                    new String[] {"TABLE"})) {
                if (tables.next()) {
                    return true;
                }
            }
        }
        return false;
    }
}
