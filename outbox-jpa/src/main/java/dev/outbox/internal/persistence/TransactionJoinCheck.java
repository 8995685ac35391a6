package dev.outbox.internal.persistence;

import dev.outbox.internal.config.OutboxSettings;
import dev.outbox.internal.config.Settings;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.event.Startup;
import jakarta.inject.Inject;

import java.sql.SQLException;

/**
 * R1.1: the recorder's rows and the inbox's marks are written only through a datasource the probe
 * ({@link TransactionJoin}) saw follow the caller's JTA transaction. The verdict is taken once, at start (or at the
 * first write, should a consumer's message come before the start-up event) and kept: a refused datasource stops the
 * start and refuses every write after it, naming the setting. The second matters on WildFly, where a deployment
 * whose start-up observer failed during the server's boot still serves its web module.
 */
@ApplicationScoped
public class TransactionJoinCheck {

    @Inject
    OutboxSettings settings;

    @Inject
    OutboxDataSource database;

    @Inject
    TransactionJoinProbe server;

    /** The server's ({@link #server}) or, in tests of pure logic, the ones given. */
    private TransactionJoin.Transactions transactions;

    /** Set only by {@link #of}: the datasource's name without settings. */
    private String given;
    private volatile boolean joined;
    private volatile NotInTransactionException refusal;
    /** Set while the probe runs, under the lock: a statement of its own that asked for the verdict would recurse. */
    private boolean probing;

    /**
     * For tests of pure logic: the probe over the transactions given, on a datasource of that name, asked by the
     * database's {@link OutboxDataSource#joined} from now on.
     */
    public static TransactionJoinCheck of(OutboxDataSource database, TransactionJoin.Transactions transactions,
                                          String dataSource) {
        TransactionJoinCheck check = new TransactionJoinCheck();
        check.database = database;
        check.transactions = transactions;
        check.given = dataSource;
        database.join = check;
        return check;
    }

    void verifyAtStart(@Observes Startup startup) {
        try {
            require();
        } catch (NotInTransactionException e) {
            throw new IllegalStateException(e.getMessage(), e); // the start fails with the refusal's words
        }
    }

    /** @throws NotInTransactionException naming {@code outbox.datasource} when the probe refused the datasource */
    public void require() throws NotInTransactionException {
        if (joined) {
            return;
        }
        NotInTransactionException known = refusal != null ? refusal : probeOnce();
        if (known != null) {
            throw new NotInTransactionException(known);
        }
    }

    private synchronized NotInTransactionException probeOnce() {
        if (joined || refusal != null) {
            return refusal;
        }
        if (probing) { // the probe's own statements must use OutboxDataSource.open(), never connect()
            throw new IllegalStateException("the R1.1 probe of the outbox datasource asked for its own verdict");
        }
        probing = true;
        try {
            probe();
            joined = true;
            return null;
        } catch (NotInTransactionException e) {
            refusal = e;
            return e;
        } catch (SQLException e) { // not a verdict: the next write tries again
            throw new IllegalStateException("cannot check that the outbox datasource " + name()
                    + " (setting " + Settings.DATASOURCE + ") is part of the caller's JTA transactions", e);
        } finally {
            probing = false;
        }
    }

    private void probe() throws SQLException {
        if (server != null) {
            // The probe writes an inbox mark; a first write may ask from inside the caller's transaction, where no
            // DDL belongs, so the schema is installed outside any.
            server.installSchema();
        }
        TransactionJoin.verify(database.dialect(), transactions != null ? transactions : server, name());
    }

    private String name() {
        return settings != null ? settings.dataSource() : given;
    }
}
