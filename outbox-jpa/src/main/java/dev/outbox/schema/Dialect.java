package dev.outbox.schema;

import java.util.List;
import java.util.Locale;

/**
 * Everything that differs between databases, in one place per database: the schema scripts now, the
 * publisher's claim and confirm statements with them. Two implementations: {@link H2Dialect} (the embedded
 * default) and {@link PostgreSqlDialect} (production).
 */
public interface Dialect {

    /** The short name used in settings and in the script folder: {@code h2} or {@code postgresql}. */
    String name();

    /** The versioned schema scripts, oldest first, as class-path resources. */
    default List<String> schemaScripts() {
        return List.of("META-INF/outbox/sql/" + name() + "/V1__outbox_event_and_processed_event.sql");
    }

    /**
     * The dialect for a setting ({@code h2}, {@code postgresql}) or, for {@code auto}, for the JDBC driver's
     * product name.
     */
    static Dialect of(String setting, String productName) {
        String key = "auto".equals(setting) ? productName.toLowerCase(Locale.ROOT) : setting;
        if (key.startsWith("h2")) {
            return new H2Dialect();
        }
        if (key.startsWith("postgresql")) {
            return new PostgreSqlDialect();
        }
        throw new IllegalStateException("the outbox has no SQL dialect for database '" + productName
                + "'; supported: H2, PostgreSQL (server.xml variable outbox.dialect)");
    }
}
