package dev.outbox.it.sql;

import dev.outbox.internal.persistence.ConfiguredDatabaseContractTest;
import dev.outbox.internal.persistence.DialectContract;
import dev.outbox.internal.persistence.MariaDbDialect;
import dev.outbox.it.support.Settings;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

import java.sql.Connection;
import java.sql.DriverManager;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The dialect contract (outbox-jpa's {@link DialectContract}) on a real MariaDB through the kit: the throwaway
 * server the build starts (scripts/mariadb-test-instance.sh), database {@code outbox_contract}, with the JDBC URL
 * options the MariaDB dialect requires (UTC instants). Runs in the MariaDB pass.
 */
@EnabledIfSystemProperty(named = "it.db", matches = "mariadb")
class MariaDbDialectContractIT extends ConfiguredDatabaseContractTest {

    /** The start-up check passes on the kit's connections and names the JDBC URL options where they are missing. */
    @Test
    void theStartUpCheckRefusesAConnectionThatDoesNotKeepInstantsInUtcOrRunsAnotherIsolationLevel() throws Exception {
        try (Connection good = connect()) {
            assertDoesNotThrow(() -> new MariaDbDialect().verifyDataSource(good, "jdbc/outbox"));
        }
        String bare = url().substring(0, url().indexOf('?')) + "?sessionVariables=time_zone='+09:00'";
        try (Connection shifted = DriverManager.getConnection(bare, user(), password())) {
            shifted.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
            IllegalStateException refused = assertThrows(IllegalStateException.class,
                    () -> new MariaDbDialect().verifyDataSource(shifted, "jdbc/outbox"));
            assertTrue(refused.getMessage().contains("connectionTimeZone=UTC"), refused.getMessage());
        }
        try (Connection repeatable = connect()) {
            repeatable.setTransactionIsolation(Connection.TRANSACTION_REPEATABLE_READ);
            IllegalStateException refused = assertThrows(IllegalStateException.class,
                    () -> new MariaDbDialect().verifyDataSource(repeatable, "jdbc/outbox"));
            assertTrue(refused.getMessage().contains("READ COMMITTED"), refused.getMessage());
        }
    }

    @Override
    protected String url() {
        return Settings.required("it.mariadb.url");
    }

    @Override
    protected String user() {
        return "outbox";
    }

    @Override
    protected String password() {
        return "outbox";
    }
}
