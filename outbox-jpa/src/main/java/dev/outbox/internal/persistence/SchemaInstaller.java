package dev.outbox.internal.persistence;

import dev.outbox.internal.config.OutboxSettings;
import dev.outbox.internal.config.Settings;
import dev.outbox.internal.logging.CoreMessages;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.event.Startup;
import jakarta.inject.Inject;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import java.util.logging.Logger;

/**
 * The opt-in create-at-start for the embedded default ({@code outbox.schema.create=true}): runs the dialect's
 * idempotent scripts after the newest version the schema already has, and none when it is up to date. Production
 * databases get the same scripts through the user's migration tool, and this stays off.
 */
@ApplicationScoped
public class SchemaInstaller {

    private static final Logger LOG = Logger.getLogger(SchemaInstaller.class.getName());

    @Inject
    OutboxSettings settings;

    @Inject
    OutboxDataSource database;

    private boolean done;

    void installAtStart(@Observes Startup startup) {
        ensureInstalled();
    }

    /**
     * Installs the schema (or refuses an older one) once per application, whichever start-up observer asks first:
     * the servers fire Startup per module, in no order another observer could rely on.
     */
    public synchronized void ensureInstalled() {
        if (done) {
            return;
        }
        install();
        done = true;
    }

    private void install() {
        if (!settings.createSchema()) {
            refuseAnOlderSchema();
            return;
        }
        List<String> scripts = database.dialect().schemaScripts();
        // Only the scripts after the newest version the schema answers to. Running them all again would be
        // harmless but for locks: V3's ALTER TABLE takes an exclusive table lock even when its column exists, so a
        // start would queue behind any transaction holding outbox rows (another server's claim, a slow business
        // transaction) and hold up every later one behind itself.
        int present = versionPresent();
        List<String> missing = scripts.stream().filter(script -> Dialect.versionOf(script) > present).toList();
        if (missing.isEmpty()) {
            CoreMessages.SCHEMA_UP_TO_DATE.log(LOG,
                    () -> "outbox schema is up to date: " + lastOf(scripts) + " applied");
            return;
        }
        try (Connection connection = database.open()) {
            // Every script is idempotent (IF NOT EXISTS): one that half ran before is completed.
            for (String script : missing) {
                new SchemaChange(database.dialect(), settings.schemaLockWait(), settings.schemaLockBudget(),
                        Thread::sleep).apply(connection, SqlScript.load(script, SchemaInstaller.class.getClassLoader()));
                CoreMessages.SCHEMA_SCRIPT_APPLIED.log(LOG, () -> "outbox schema script applied: " + script);
            }
        } catch (SQLException e) {
            throw new IllegalStateException("cannot create the outbox schema on " + settings.dataSource()
                    + " (setting " + Settings.SCHEMA_CREATE + "=true)", e);
        }
    }

    /**
     * Where the user's migration tool owns the schema, a start on an older one would fail every command that
     * records an event (schema V6 gives next_attempt_at the default the recorder relies on): stop here instead,
     * naming the scripts. The probe reads what the latest script adds last.
     */
    private void refuseAnOlderSchema() {
        SQLException missing = probe(Dialect.LATEST_SCHEMA_PROBE);
        if (missing != null) {
            throw new IllegalStateException("the outbox schema on " + settings.dataSource() + " is older than"
                    + " this release: apply the scripts up to " + lastOf(database.dialect().schemaScripts())
                    + " with your migration tool (they are idempotent), or set " + Settings.SCHEMA_CREATE + "=true",
                    missing);
        }
    }

    /** The newest schema version whose probe answers, 0 for none (an empty database). */
    private int versionPresent() {
        for (var version : Dialect.SCHEMA_PROBES.descendingMap().entrySet()) {
            if (probe(version.getValue()) == null) {
                return version.getKey();
            }
        }
        return 0;
    }

    /**
     * Runs a probe: null when it answers, else why not. On a connection of its own, as a failed statement would
     * spoil a PostgreSQL transaction the scripts might share. A database that cannot be reached counts as not
     * answering: the scripts (or the refusal) then report it.
     */
    private SQLException probe(String query) {
        try (Connection connection = database.open();
             java.sql.PreparedStatement probe = connection.prepareStatement(query)) {
            probe.executeQuery().close();
            return null;
        } catch (SQLException missing) {
            return missing;
        }
    }

    private static String lastOf(List<String> scripts) {
        return scripts.get(scripts.size() - 1);
    }
}
