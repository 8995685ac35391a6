package dev.outbox.it.sql;

import dev.outbox.internal.persistence.ConfiguredDatabaseContractTest;
import dev.outbox.internal.persistence.DialectContract;
import dev.outbox.internal.persistence.PostgreSqlDialect;
import dev.outbox.it.support.Settings;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

import java.sql.Connection;
import java.sql.DriverManager;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The dialect contract (outbox-jpa's {@link DialectContract}) on the real test PostgreSQL, run the way a team runs
 * the kit on its own database ({@link ConfiguredDatabaseContractTest}): on the test cluster's database
 * {@code outbox_contract}, which nothing else uses, with the schema scripts installed again before each case (they
 * are idempotent) and every outbox row deleted; FOR UPDATE SKIP LOCKED claimers race too.
 */
@EnabledIfSystemProperty(named = "it.db", matches = "postgresql")
class PostgreSqlDialectContractIT extends ConfiguredDatabaseContractTest {

    /**
     * R6.3, issue 42 item 6: the driver's default quotes a failed statement's row values (a payload) in the exception
     * the recorder passes on; the start-up check refuses such a datasource, naming the property, and passes one with
     * {@code logServerErrorDetail=false}, as the example's configurations set it.
     */
    @Test
    void theStartUpCheckRefusesAConnectionWhoseErrorsQuoteRowValues() throws Exception {
        try (Connection quiet = DriverManager.getConnection(withOption(url(), "logServerErrorDetail=false"), user(),
                password())) {
            assertDoesNotThrow(() -> new PostgreSqlDialect().verifyDataSource(quiet, "jdbc/outbox"));
            assertTrue(quiet.getAutoCommit(), "the probe leaves the connection as it found it");
        }
        try (Connection quoting = DriverManager.getConnection(url(), user(), password())) {
            quoting.setAutoCommit(false);
            IllegalStateException refused = assertThrows(IllegalStateException.class,
                    () -> new PostgreSqlDialect().verifyDataSource(quoting, "jdbc/outbox"),
                    "the driver's default (logServerErrorDetail=true) quotes row values in its exceptions");
            assertTrue(refused.getMessage().contains("logServerErrorDetail=false")
                    && refused.getMessage().contains("jdbc/outbox"), refused.getMessage());
            try (var after = quoting.createStatement(); var rs = after.executeQuery("SELECT 1")) {
                assertTrue(rs.next(), "the probe's failure does not leave the caller's transaction aborted");
            }
            quoting.rollback();
        }
    }

    /**
     * A probe cut short by a lost connection or a server that ended the session says nothing about the driver: it is
     * no verdict (an SQLException, tried again by the next connection), never a refusal kept for the deployment's life
     * (DataSourceCheck keeps an IllegalStateException as the datasource's verdict).
     */
    @Test
    void aProbeCutShortByAnEndedSessionIsNoVerdict() throws Exception {
        try (Connection ended = DriverManager.getConnection(withOption(url(), "logServerErrorDetail=false"), user(),
                password()); Connection admin = DriverManager.getConnection(url(), user(), password())) {
            int pid;
            try (var select = ended.createStatement(); var rs = select.executeQuery("SELECT pg_backend_pid()")) {
                rs.next();
                pid = rs.getInt(1);
            }
            try (var terminate = admin.prepareStatement("SELECT pg_terminate_backend(?)")) {
                terminate.setInt(1, pid);
                terminate.execute();
            }
            java.sql.SQLException passing = assertThrows(java.sql.SQLException.class,
                    () -> new PostgreSqlDialect().verifyDataSource(ended, "jdbc/outbox"),
                    "an ended session is no answer about the driver's error details");
            assertTrue(passing.getSQLState() != null && (passing.getSQLState().startsWith("08")
                    || passing.getSQLState().startsWith("57")), "SQLState " + passing.getSQLState());
        }
    }

    private static String withOption(String url, String option) {
        return url + (url.contains("?") ? "&" : "?") + option;
    }

    @Override
    protected String url() {
        String url = Settings.required("it.jdbc.url");
        String contract = url.replaceFirst("/outbox(\\?|$)", "/outbox_contract$1");
        if (contract.equals(url)) {
            throw new IllegalStateException("it.jdbc.url does not name the database outbox: " + url);
        }
        return contract;
    }

    @Override
    protected String user() {
        return Settings.required("it.jdbc.user");
    }

    @Override
    protected String password() {
        return System.getProperty("it.jdbc.password", "");
    }
}
