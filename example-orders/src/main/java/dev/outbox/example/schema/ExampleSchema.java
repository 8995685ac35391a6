package dev.outbox.example.schema;

import dev.outbox.config.OutboxSettings;
import dev.outbox.schema.Dialect;
import dev.outbox.schema.SchemaInstaller;
import dev.outbox.schema.SqlScript;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.event.Startup;
import jakarta.inject.Inject;

import java.sql.Connection;
import java.sql.SQLException;

/** Creates the example's business tables at start when they are missing (it is an example: no migrations). */
@ApplicationScoped
public class ExampleSchema {

    @Inject
    OutboxSettings settings;

    void createAtStart(@Observes Startup startup) {
        try (Connection connection = SchemaInstaller.lookup(settings.dataSource()).getConnection()) {
            if (SqlScript.tableExists(connection, "orders")) {
                return;
            }
            Dialect dialect = Dialect.of(settings.dialect(), connection.getMetaData().getDatabaseProductName());
            SqlScript.load("META-INF/example/sql/" + dialect.name() + "/V1__orders_and_shipments.sql",
                    ExampleSchema.class.getClassLoader()).run(connection);
        } catch (SQLException e) {
            throw new IllegalStateException("cannot create the example's tables", e);
        }
    }
}
