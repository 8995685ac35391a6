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

    /**
     * Issue 44: a quiet outbox is analyzed while nearly empty, and then meets a backlog (after a broker outage). With
     * those statistics PostgreSQL planned the claim as a sequential scan with a sequential scan per row for the strict
     * check (58.7 s for one claim over 100,000 rows); the claim's guard has it planned on the indexes whatever the
     * statistics say. Without the guard the same statement is planned the bad way, which shows this can fail.
     */
    @Test
    void aClaimIsPlannedOnTheIndexesWhenTheStatisticsSayTheTableIsEmpty() throws Exception {
        try (Connection c = DriverManager.getConnection(url(), user(), password())) {
            try (var statement = c.createStatement()) {
                statement.execute("DELETE FROM outbox_event");
                statement.execute("ANALYZE outbox_event"); // as autoanalyze leaves a quiet outbox
                statement.execute("INSERT INTO outbox_event (event_id, aggregate_type, aggregate_id, aggregate_version,"
                        + " event_type, schema_version, payload, created_at, state, attempts, next_attempt_at,"
                        + " lease_version) SELECT gen_random_uuid(), 'Order', 'o-' || (g % 50), g / 50 + 1, 'Paid', 1,"
                        + " '{}', now(), 'PENDING', 0, now() - interval '1 second', 0"
                        + " FROM generate_series(0, 4999) g");
            }
            c.setAutoCommit(false);
            try {
                String unguarded = claimPlan(c);
                assertTrue(!walksInDueOrder(unguarded), "without the guard, statistics of an empty table plan the"
                        + " claim to read every due row and sort them (else this test proves nothing): " + unguarded);
                try (var guard = c.prepareStatement(PostgreSqlDialect.CLAIM_PLAN_GUARD)) {
                    guard.executeQuery().close();
                }
                String guarded = claimPlan(c);
                assertTrue(walksInDueOrder(guarded), "the guarded claim walks the due index in order, stops at its"
                        + " limit and probes an index per row: " + guarded);
            } finally {
                c.rollback();
            }
        }
    }

    /**
     * A claim that costs its batch, not the backlog: no sequential scan, no bitmap scan (which reads every match
     * before anything is returned), no sort (which needs every due row first) and no hash (which reads its whole
     * side first).
     */
    private static boolean walksInDueOrder(String plan) {
        return !plan.contains("Seq Scan") && !plan.contains("Bitmap") && !plan.contains("Sort")
                && !plan.contains("Hash");
    }

    private static String claimPlan(Connection c) throws java.sql.SQLException {
        var request = new dev.outbox.internal.persistence.ClaimRequest("plan", 500, java.time.Duration.ofSeconds(30),
                true, java.util.Set.of());
        var now = java.time.OffsetDateTime.now();
        try (var explain = c.prepareStatement("EXPLAIN " + PostgreSqlDialect.claimStatement(request))) {
            int next = dev.outbox.internal.persistence.Claims.bindCandidates(explain, 1, request, now);
            explain.setString(next, "plan");
            explain.setObject(next + 1, now.plusSeconds(30));
            explain.setObject(next + 2, now.plusSeconds(30));
            StringBuilder plan = new StringBuilder();
            try (var rs = explain.executeQuery()) {
                while (rs.next()) {
                    plan.append(" / ").append(rs.getString(1).strip());
                }
            }
            return plan.toString();
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
