package dev.outbox.internal.persistence;

import dev.outbox.spi.OutboundEvent;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The dialect contract on a real in-memory H2, the embedded default. */
class H2DialectContractTest extends DialectContract {

    private String url;

    @Override
    protected Dialect dialect() {
        return new H2Dialect();
    }

    /** H2's claim is a compare-and-set on the lease: a second claimer waits for the first instead of skipping. */
    @Override
    protected boolean skipsLockedRows() {
        return false;
    }

    /**
     * H2's counterpart of the racing claimers (R4.1, R7.4): the second claimer waits for the first one's uncommitted
     * claim, then takes none of its rows (the lease version moved), and the rows left over go to the next claim.
     */
    @Test
    void aSecondClaimerWaitsForTheFirstsUncommittedClaimAndNeverTakesItsRows() throws Exception {
        for (int i = 0; i < 6; i++) {
            pending("agg-" + i, 1, "T");
        }
        ClaimRequest p1 = new ClaimRequest("p1", 4, Duration.ofSeconds(30), true, Set.of());
        ClaimRequest p2 = new ClaimRequest("p2", 4, Duration.ofSeconds(30), true, Set.of());
        try (Connection first = connect(); Connection second = connect()) {
            first.setAutoCommit(false);
            second.setAutoCommit(false);
            List<OutboundEvent> a = dialect().claim(first, p1);
            CompletableFuture<List<OutboundEvent>> racing = inAnotherThread(() -> dialect().claim(second, p2));
            Thread.sleep(300);
            assertFalse(racing.isDone(), "the second claimer waits for the first one's uncommitted claim");
            first.commit();
            List<OutboundEvent> b = racing.get(10, TimeUnit.SECONDS);
            second.commit();
            assertEquals(4, a.size());
            assertTrue(a.stream().noneMatch(x -> b.stream().anyMatch(y -> y.id().equals(x.id()))),
                    "never a row of the first claim: " + b);
            second.setAutoCommit(true);
            assertEquals(6, a.size() + b.size() + dialect().claim(second, p2).size(),
                    "every row claimed once, the rest by the next claim");
        }
    }

    @Override
    protected Connection openFresh() throws SQLException {
        Connection fresh = FreshH2.open();
        url = fresh.getMetaData().getURL();
        return fresh;
    }

    @Override
    protected Connection connect() throws SQLException {
        Connection other = DriverManager.getConnection(url, "sa", "");
        try (Statement statement = other.createStatement()) {
            // Long enough for the tests that make one transaction wait for another's lock.
            statement.execute("SET LOCK_TIMEOUT 10000");
        }
        return other;
    }
}
