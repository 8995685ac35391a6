package dev.outbox.internal.persistence;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * A schema script from the class path: statements end with a semicolon at the end of a line, {@code --}
 * starts a comment line. The same files are what users hand to Flyway or Liquibase, so they stay plain SQL.
 */
public final class SqlScript {

    private final String resource;
    private final List<String> statements;

    private SqlScript(String resource, List<String> statements) {
        this.resource = resource;
        this.statements = statements;
    }

    public static SqlScript load(String resource, ClassLoader loader) {
        try (InputStream in = loader.getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException("schema script not found on the class path: " + resource);
            }
            return new SqlScript(resource, split(new String(in.readAllBytes(), StandardCharsets.UTF_8)));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read schema script " + resource, e);
        }
    }

    static List<String> split(String text) {
        List<String> statements = new ArrayList<>();
        StringBuilder current = new StringBuilder();
        for (String line : text.split("\n")) {
            String trimmed = line.strip();
            if (trimmed.isEmpty() || trimmed.startsWith("--")) {
                continue;
            }
            current.append(line).append('\n');
            if (trimmed.endsWith(";")) {
                String statement = current.toString().strip();
                statements.add(statement.substring(0, statement.length() - 1));
                current.setLength(0);
            }
        }
        if (!current.toString().isBlank()) {
            throw new IllegalArgumentException("schema script ends inside a statement: " + current.toString().strip());
        }
        return statements;
    }

    /** The class-path resource it was read from, for messages. */
    public String resource() {
        return resource;
    }

    public List<String> statements() {
        return statements;
    }

    /** Runs every statement on the connection, each in its own auto-commit unit. */
    public void run(Connection connection) throws SQLException {
        runFrom(connection, 0);
    }

    /**
     * Runs the statements from index {@code from} on; returns the number of statements now run. A failure names the
     * statement, and {@link Failed#statement} says which one, so a retry can go on from there.
     */
    public int runFrom(Connection connection, int from) throws SQLException {
        try (Statement statement = connection.createStatement()) {
            for (int i = from; i < statements.size(); i++) {
                String sql = statements.get(i);
                try {
                    statement.execute(sql);
                } catch (SQLException e) {
                    throw new Failed(resource, i, firstLine(sql), e);
                }
            }
        }
        return statements.size();
    }

    /** A statement of a script failed; earlier ones ran. */
    public static final class Failed extends SQLException {

        private final int statement;

        Failed(String resource, int statement, String firstLine, SQLException cause) {
            super("schema script " + resource + " failed at: " + firstLine, cause);
            this.statement = statement;
        }

        /** The index of the statement that failed. */
        public int statement() {
            return statement;
        }
    }

    /**
     * Whether the connection's own catalog and schema already have the table, in any letter case. Never another
     * database's: MariaDB calls its databases catalogs, and a lookup without one sees every database on the server.
     */
    public static boolean tableExists(Connection connection, String table) throws SQLException {
        DatabaseMetaData meta = connection.getMetaData();
        for (String name : List.of(table, table.toUpperCase(Locale.ROOT), table.toLowerCase(Locale.ROOT))) {
            try (ResultSet tables = meta.getTables(connection.getCatalog(), connection.getSchema(), name,
                    new String[] {"TABLE"})) {
                if (tables.next()) {
                    return true;
                }
            }
        }
        return false;
    }

    private static String firstLine(String sql) {
        int end = sql.indexOf('\n');
        return end < 0 ? sql : sql.substring(0, end);
    }
}
