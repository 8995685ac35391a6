package dev.outbox.internal.persistence;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The embedded default must keep every acknowledged commit through a process kill (R1.2): start-up says so. */
class H2DurabilityTest {

    @TempDir
    Path folder;

    @Test
    void anH2FileDatabaseWithAWriteDelayStopsTheStartAndNamesTheSetting() throws SQLException {
        try (Connection connection = DriverManager.getConnection("jdbc:h2:" + folder.resolve("delayed")
                + ";AUTO_SERVER=TRUE", "sa", "")) {
            IllegalStateException refused = assertThrows(IllegalStateException.class,
                    () -> new H2Dialect().verifyDataSource(connection, "jdbc/outbox"));
            assertTrue(refused.getMessage().contains("WRITE_DELAY=500") && refused.getMessage().contains("h2.url")
                    && refused.getMessage().contains("jdbc/outbox"), refused.getMessage());
        }
    }

    @Test
    void anH2FileDatabaseWithoutWriteDelayStarts() throws SQLException {
        try (Connection connection = DriverManager.getConnection("jdbc:h2:" + folder.resolve("durable")
                + ";AUTO_SERVER=TRUE;WRITE_DELAY=0", "sa", "")) {
            assertDoesNotThrow(() -> new H2Dialect().verifyDataSource(connection, "jdbc/outbox"));
        }
    }
}
