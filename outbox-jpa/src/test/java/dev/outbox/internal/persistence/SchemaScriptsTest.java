package dev.outbox.internal.persistence;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.List;
import java.util.UUID;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The H2 script on a real (in-memory) H2: it runs, and its keys refuse what the spec forbids. The PostgreSQL
 * script runs on a real PostgreSQL in itests, where the server creates its schema from it.
 */
class SchemaScriptsTest {

    private Connection connection;

    @BeforeEach
    void createSchema() throws SQLException {
        connection = FreshH2.open();
    }

    @AfterEach
    void close() throws SQLException {
        connection.close();
    }

    private void insert(UUID id, String aggregateId, long version, String payload, String reference) throws SQLException {
        RecordedRow.pending("Order", aggregateId, version, "OrderPlaced").withId(id).withBody(payload, reference)
                .insert(connection);
    }

    @Test
    void bothDialectsShipTheSameScriptNames() {
        List<String> h2 = new H2Dialect().schemaScripts().stream().map(s -> s.substring(s.lastIndexOf('/'))).toList();
        List<String> pg = new PostgreSqlDialect().schemaScripts().stream().map(s -> s.substring(s.lastIndexOf('/'))).toList();
        assertEquals(h2, pg);
        for (String script : new PostgreSqlDialect().schemaScripts()) {
            assertTrue(SqlScript.load(script, getClass().getClassLoader()).statements().size() >= 1, script + " has statements");
        }
    }

    @Test
    void aTableOfAnotherSchemaOnTheSameServerDoesNotCountAsInstalled() throws SQLException {
        // MariaDB calls its databases catalogs: a lookup without the connection's own catalog sees the tables of
        // every database on the server, so a second database was taken for installed (the MariaDB run's crash
        // servers met an empty outbox_crash after the first server filled outbox).
        try (var statement = connection.createStatement()) {
            statement.execute("CREATE SCHEMA neighbour");
            statement.execute("CREATE TABLE neighbour.only_there (id INT)");
        }
        assertFalse(SqlScript.tableExists(connection, "only_there"),
                "a table in schema neighbour was taken for one in the connection's own schema");
    }

    @Test
    void theScriptsCreateEveryTableAndCanRunAgain() throws SQLException {
        assertTrue(SqlScript.tableExists(connection, "outbox_event"));
        assertTrue(SqlScript.tableExists(connection, "processed_event"));
        assertTrue(SqlScript.tableExists(connection, "side_effect"));
        assertTrue(SqlScript.tableExists(connection, "outbox_audit"));
        assertTrue(SqlScript.tableExists(connection, "outbox_replay_request"));
        for (String script : new H2Dialect().schemaScripts()) {
            SqlScript.load(script, getClass().getClassLoader()).run(connection);
        }
    }

    @Test
    void theLatestSchemaProbeFailsOnASchemaWithoutTheLatestScript() throws SQLException {
        try (var probe = connection.prepareStatement(Dialect.LATEST_SCHEMA_PROBE)) {
            probe.executeQuery().close(); // every script applied
        }
        try (var older = java.sql.DriverManager.getConnection("jdbc:h2:mem:" + UUID.randomUUID(), "sa", "")) {
            List<String> scripts = new H2Dialect().schemaScripts();
            for (String script : scripts.subList(0, scripts.size() - 1)) {
                SqlScript.load(script, getClass().getClassLoader()).run(older);
            }
            assertThrows(SQLException.class, () -> older.prepareStatement(Dialect.LATEST_SCHEMA_PROBE).executeQuery(),
                    "a schema one script behind must fail the probe");
        }
    }

    @Test
    void eachVersionsProbeFailsBeforeItsScriptAndAnswersAfterIt() throws SQLException {
        // The start-up runs only the scripts after the newest version that answers: a probe that answered early
        // would skip a script, one that never answered would re-run it (and V3's table lock) at every start.
        List<String> scripts = new H2Dialect().schemaScripts();
        try (var growing = java.sql.DriverManager.getConnection("jdbc:h2:mem:" + UUID.randomUUID(), "sa", "")) {
            for (String script : scripts) {
                int version = Dialect.versionOf(script);
                String probe = Dialect.SCHEMA_PROBES.get(version);
                if (probe != null) {
                    assertThrows(SQLException.class, () -> growing.prepareStatement(probe).executeQuery(),
                            "V" + version + "'s probe answered before its script ran");
                }
                SqlScript.load(script, getClass().getClassLoader()).run(growing);
                if (probe != null) {
                    growing.prepareStatement(probe).executeQuery().close(); // answers once V<version> ran
                }
            }
        }
        assertEquals(scripts.size(), Dialect.versionOf(scripts.get(scripts.size() - 1)), "versions are 1 to n");
        assertEquals(Dialect.versionOf(scripts.get(scripts.size() - 1)), Dialect.SCHEMA_PROBES.lastKey(),
                "the newest script has a probe, or a start could never tell it is missing");
    }

    @Test
    void theUniqueKeyRefusesASecondEventAtOneAggregateVersion() throws SQLException {
        insert(UUID.randomUUID(), "o-1", 1, "{}", null);
        insert(UUID.randomUUID(), "o-1", 2, "{}", null);
        SQLException e = assertThrows(SQLException.class, () -> insert(UUID.randomUUID(), "o-1", 1, "{}", null));
        assertEquals("23505", e.getSQLState(), "a unique violation, which the recorder reports as a duplicate version");
    }

    @Test
    void aRowNeedsExactlyOneOfPayloadAndReference() {
        assertThrows(SQLException.class, () -> insert(UUID.randomUUID(), "o-2", 1, null, null));
        assertThrows(SQLException.class, () -> insert(UUID.randomUUID(), "o-3", 1, "{}", "s3://bucket/key"));
    }

    @Test
    void theInboxKeyIsConsumerAndEventId() throws SQLException {
        UUID event = UUID.randomUUID();
        String sql = "INSERT INTO processed_event (consumer, event_id, processed_at, retain_until) "
                + "VALUES (?, ?, CURRENT_TIMESTAMP, CURRENT_TIMESTAMP)";
        try (PreparedStatement insert = connection.prepareStatement(sql)) {
            for (String consumer : List.of("shipping", "invoicing")) {
                insert.setString(1, consumer);
                insert.setObject(2, event);
                insert.executeUpdate();
            }
            insert.setString(1, "shipping");
            insert.setObject(2, event);
            SQLException e = assertThrows(SQLException.class, insert::executeUpdate,
                    "one consumer cannot process one event twice");
            assertEquals("23505", e.getSQLState());
        }
    }

    @Test
    void scriptsSplitOnSemicolonsAtLineEndsAndSkipComments() {
        List<String> statements = SqlScript.split("-- comment\nCREATE TABLE a (x INT);\n\nCREATE INDEX i\n  ON a (x);\n");
        assertEquals(List.of("CREATE TABLE a (x INT)", "CREATE INDEX i\n  ON a (x)"), statements);
        assertThrows(IllegalArgumentException.class, () -> SqlScript.split("CREATE TABLE a (x INT)"));
    }
}
