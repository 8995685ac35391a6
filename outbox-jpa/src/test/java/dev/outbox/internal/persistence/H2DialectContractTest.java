package dev.outbox.internal.persistence;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;

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
