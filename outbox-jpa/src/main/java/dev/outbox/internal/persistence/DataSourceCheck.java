package dev.outbox.internal.persistence;

import dev.outbox.internal.config.OutboxSettings;
import dev.outbox.internal.config.Settings;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.event.Startup;
import jakarta.inject.Inject;

import java.sql.SQLException;

/**
 * Refuses to start on a datasource set up to break a guarantee silently ({@link Dialect#verifyDataSource}): one that
 * loses acknowledged commits when the process is killed (R1.2), runs another isolation level than the outbox's SQL is
 * written for or shifts stored instants (MariaDB), or quotes payloads in its exceptions (R6.3). The verdict is kept and
 * every outbox connection asks it ({@link OutboxDataSource#connect}), because WildFly keeps serving a deployment whose
 * start failed at boot.
 */
@ApplicationScoped
public class DataSourceCheck {

    @Inject
    OutboxSettings settings;

    @Inject
    OutboxDataSource database;

    @Inject
    OutsideTransaction outside;

    /** Set only by {@link #of}: the datasource's name without settings. */
    private String given;
    private volatile boolean verified;
    private volatile IllegalStateException refusal;

    /** For tests of pure logic: the check of the database given, asked by its {@link OutboxDataSource#connect}. */
    public static DataSourceCheck of(OutboxDataSource database, String dataSource) {
        DataSourceCheck check = new DataSourceCheck();
        check.database = database;
        check.given = dataSource;
        // no interceptor outside a container, and no caller's transaction to keep out of
        check.outside = new OutsideTransaction();
        check.outside.database = database;
        database.settingsCheck = check;
        return check;
    }

    void verifyAtStart(@Observes Startup startup) {
        try {
            require();
        } catch (DataSourceRefusedException e) {
            throw (IllegalStateException) e.getCause(); // the start fails with the refusal's own words
        } catch (SQLException e) {
            throw new IllegalStateException("cannot check the settings of the outbox datasource " + name()
                    + " (setting " + Settings.DATASOURCE + ")", e);
        }
    }

    /**
     * @throws DataSourceRefusedException with the refusal's words when the datasource was refused
     * @throws SQLException when it could not be checked (not a verdict: the next connection tries again)
     */
    public void require() throws SQLException {
        if (verified) {
            return;
        }
        IllegalStateException known = refusal != null ? refusal : verifyOnce();
        if (known != null) {
            throw new DataSourceRefusedException(known);
        }
    }

    private synchronized IllegalStateException verifyOnce() throws SQLException {
        if (verified || refusal != null) {
            return refusal;
        }
        // The first connection may be asked for inside a caller's transaction (the start-up check could not reach
        // the database): the check's deliberate failure must not abort the caller's transaction.
        try {
            outside.run(connection -> {
                database.dialect().verifyDataSource(connection, name());
                return null;
            });
            verified = true;
            return null;
        } catch (IllegalStateException refused) {
            refusal = refused;
            return refused;
        }
    }

    private String name() {
        return settings != null ? settings.dataSource() : given;
    }
}
