package dev.outbox.internal.persistence;

import dev.outbox.internal.config.OutboxSettings;
import dev.outbox.internal.config.Settings;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.event.Startup;
import jakarta.inject.Inject;

import java.sql.Connection;
import java.sql.SQLException;

/**
 * Refuses to start on a database set up to lose acknowledged commits when the process is killed (the embedded
 * H2 with a write delay): every 201 a client saw must be in the database afterwards, with its events (R1.2).
 */
@ApplicationScoped
public class DurabilityCheck {

    @Inject
    OutboxSettings settings;

    @Inject
    OutboxDataSource database;

    void verifyAtStart(@Observes Startup startup) {
        try (Connection connection = database.connect()) {
            database.dialect().verifyDurable(connection, settings.dataSource());
        } catch (SQLException e) {
            throw new IllegalStateException("cannot read the durability settings of the outbox datasource "
                    + settings.dataSource() + " (setting " + Settings.DATASOURCE + ")", e);
        }
    }
}
