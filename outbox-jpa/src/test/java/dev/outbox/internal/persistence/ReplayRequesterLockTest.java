package dev.outbox.internal.persistence;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * R9.4 on H2 (PostgreSqlStatementsIT has the twin): one person's replay requests are decided one after the
 * other, so parallel requests count each other against the approval threshold; another person's do not wait.
 */
class ReplayRequesterLockTest {

    private final Dialect dialect = new H2Dialect();
    private Connection first;
    private Connection second;

    @BeforeEach
    void open() throws SQLException {
        first = FreshH2.open();
        second = DriverManager.getConnection(first.getMetaData().getURL(), "sa", "");
        first.setAutoCommit(false);
        second.setAutoCommit(false);
    }

    @AfterEach
    void close() throws SQLException {
        second.close();
        first.close();
    }

    @Test
    void aSecondRequestOfThePersonWaitsUntilTheFirstHasCommitted() throws Exception {
        dialect.lockRequester(first, "lead");
        first.commit(); // the person's row exists now
        dialect.lockRequester(first, "lead");

        CompletableFuture<Void> waiting = CompletableFuture.runAsync(() -> {
            try {
                dialect.lockRequester(second, "lead");
                second.commit();
            } catch (SQLException e) {
                throw new IllegalStateException(e);
            }
        });
        Thread.sleep(300);
        assertFalse(waiting.isDone(), "the second request of one person must wait while the first is undecided");
        first.commit();
        waiting.get(10, TimeUnit.SECONDS);
    }

    @Test
    void theFirstRequestOfAPersonCreatesTheirRowAndAnotherPersonDoesNotWait() throws Exception {
        dialect.lockRequester(first, "lead");
        CompletableFuture<Void> other = CompletableFuture.runAsync(() -> {
            try {
                dialect.lockRequester(second, "operator");
                second.commit();
            } catch (SQLException e) {
                throw new IllegalStateException(e);
            }
        });
        other.get(5, TimeUnit.SECONDS);
        assertTrue(other.isDone(), "another person's request goes on");
        first.commit();
    }
}
