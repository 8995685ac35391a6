package dev.outbox.example.schema;

import dev.outbox.schema.OutboxDataSource;
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
    OutboxDataSource database;

    void createAtStart(@Observes Startup startup) {
        try (Connection connection = database.connect()) {
            // One script per step: the example's tables use only SQL that H2 and PostgreSQL share.
            if (!SqlScript.tableExists(connection, "orders")) {
                SqlScript.load("META-INF/example/sql/V1__orders_and_shipments.sql",
                        ExampleSchema.class.getClassLoader()).run(connection);
            }
            if (!SqlScript.tableExists(connection, "loyalty_points")) {
                SqlScript.load("META-INF/example/sql/V2__invoices.sql",
                        ExampleSchema.class.getClassLoader()).run(connection);
            }
        } catch (SQLException e) {
            throw new IllegalStateException("cannot create the example's tables", e);
        }
    }
}
