package dev.outbox.schema;

import dev.outbox.config.OutboxSettings;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.event.Startup;
import jakarta.inject.Inject;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.logging.Logger;

/**
 * The opt-in create-at-start for the embedded default ({@code outbox.schema.create=true}): runs the dialect's
 * idempotent scripts, creating what is missing. Production databases get the same scripts through the
 * user's migration tool, and this stays off.
 */
@ApplicationScoped
public class SchemaInstaller {

    private static final Logger LOG = Logger.getLogger(SchemaInstaller.class.getName());

    @Inject
    OutboxSettings settings;

    @Inject
    OutboxDataSource database;

    void installAtStart(@Observes Startup startup) {
        if (!settings.createSchema()) {
            return;
        }
        Dialect dialect = database.dialect();
        try (Connection connection = database.connect()) {
            // Every script is idempotent (IF NOT EXISTS): running them all brings an older schema up to date.
            for (String script : dialect.schemaScripts()) {
                SqlScript.load(script, SchemaInstaller.class.getClassLoader()).run(connection);
                LOG.info(() -> "outbox schema script applied: " + script);
            }
        } catch (SQLException e) {
            throw new IllegalStateException("cannot create the outbox schema on " + settings.dataSource()
                    + " (server.xml variable " + OutboxSettings.SCHEMA_CREATE + "=true)", e);
        }
    }
}
