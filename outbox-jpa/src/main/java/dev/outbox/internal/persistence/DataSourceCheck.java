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
 * Refuses to start on a datasource set up to break a guarantee silently ({@link Dialect#verifyDataSource}): one that
 * loses acknowledged commits when the process is killed (R1.2), runs another isolation level than the outbox's SQL is
 * written for or shifts stored instants (MariaDB), or quotes payloads in its exceptions (R6.3).
 */
@ApplicationScoped
public class DataSourceCheck {

    @Inject
    OutboxSettings settings;

    @Inject
    OutboxDataSource database;

    void verifyAtStart(@Observes Startup startup) {
        try (Connection connection = database.open()) {
            database.dialect().verifyDataSource(connection, settings.dataSource());
        } catch (SQLException e) {
            throw new IllegalStateException("cannot check the settings of the outbox datasource "
                    + settings.dataSource() + " (setting " + Settings.DATASOURCE + ")", e);
        }
    }
}
