package dev.outbox.internal.persistence;

import dev.outbox.internal.config.OutboxSettings;
import dev.outbox.internal.config.Settings;
import dev.outbox.spi.OutboundEvent;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;

import javax.naming.InitialContext;
import javax.naming.NamingException;
import javax.sql.DataSource;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import java.util.function.Supplier;

/**
 * The datasource the outbox's own SQL runs on ({@code outbox.datasource}) and its dialect, looked up once.
 * Inside a JTA transaction its connections are the same one the business change uses.
 */
@ApplicationScoped
public class OutboxDataSource {

    @Inject
    OutboxSettings settings;

    @Inject
    TransactionJoinCheck join;

    @Inject
    DataSourceCheck settingsCheck;

    private volatile DataSource dataSource;
    private volatile Dialect dialect;
    /** Set only by {@link #over}: the one connection every statement runs on. */
    private Connection only;

    /**
     * The outbox's statements on one open connection, in whatever transaction it is in, without JNDI or a container:
     * for the protocol checker and in-process tests, which drive the product's code on a real database. Closing what
     * {@link #connect} returns leaves the connection open.
     */
    public static OutboxDataSource over(Connection connection, Dialect dialect) {
        OutboxDataSource database = new OutboxDataSource();
        database.only = connection;
        database.dialect = dialect;
        return database;
    }

    /**
     * A connection for the outbox's statements, of a datasource whose settings passed {@link DataSourceCheck} and
     * that the start-up probe saw follow the caller's JTA transaction ({@link TransactionJoinCheck}, R1.1); without a container ({@link #over}) the connection given.
     * Inside a transaction it is the business change's own connection.
     *
     * @throws NotInTransactionException naming {@code outbox.datasource} when the probe refused the datasource
     * @throws DataSourceRefusedException when the settings check refused it ({@link DataSourceCheck}: durability,
     *                                    isolation, time zone, error details)
     */
    public Connection connect() throws SQLException {
        if (settingsCheck != null) {
            settingsCheck.require();
        }
        if (join != null) {
            join.require();
        }
        return open();
    }

    /**
     * A connection of the datasource without the R1.1 check: for the probe itself and for what must run before its
     * verdict (the schema, the start-up settings check). Tests of pure logic give their own.
     */
    protected Connection open() throws SQLException {
        if (only != null) {
            return (Connection) Proxy.newProxyInstance(Connection.class.getClassLoader(),
                    new Class<?>[] {Connection.class}, (proxy, method, arguments) -> {
                        if (method.getName().equals("close")) {
                            return null;
                        }
                        try {
                            return method.invoke(only, arguments);
                        } catch (InvocationTargetException e) {
                            throw e.getCause();
                        }
                    });
        }
        return dataSource().getConnection();
    }

    /**
     * The dialect's claim on a connection of its own, in the caller's (short) transaction (R4.1); a failure is an
     * unknown outcome for the whole batch: nothing was sent, and the rows are due again when their leases run out.
     */
    public List<OutboundEvent> claim(ClaimRequest request) {
        return onConnection(connection -> dialect().claim(connection, request),
                () -> "outbox claim failed for claimer " + request.claimer());
    }

    /** Statements run on one connection; a {@link SQLException} ends them. */
    @FunctionalInterface
    public interface Work<T> {
        T on(Connection connection) throws SQLException;
    }

    /**
     * Runs {@code work} on a connection of this datasource (in the caller's transaction, if any) and closes it; a
     * failure becomes an {@link IllegalStateException} that says what failed, with the SQL exception as its cause.
     */
    public <T> T onConnection(Work<T> work, Supplier<String> failure) {
        try (Connection connection = connect()) {
            return work.on(connection);
        } catch (SQLException e) {
            throw new IllegalStateException(failure.get(), e);
        }
    }

    /** Inbox statements on one connection; a {@link SQLException} ends them. */
    @FunctionalInterface
    public interface InboxWork<T> {
        T on(InboxStore inbox) throws SQLException;
    }

    /** {@link #onConnection} for the inbox's statements, with this datasource's dialect. */
    public <T> T onInbox(InboxWork<T> work, Supplier<String> failure) {
        return onConnection(connection -> work.on(new InboxStore(connection, dialect())), failure);
    }

    /**
     * The simple class name of what failed in the database: the SQL exception's where one caused the failure, so a
     * health check or a metric names the driver's exception (R6.3: a name, never its message).
     */
    public static String failureName(RuntimeException failure) {
        return failure.getCause() instanceof SQLException cause ? cause.getClass().getSimpleName()
                : failure.getClass().getSimpleName();
    }

    public Dialect dialect() {
        Dialect known = dialect;
        if (known == null) {
            try (Connection connection = open()) { // no R1.1 check: the probe needs the dialect
                known = Dialect.of(settings.dialect(), connection.getMetaData().getDatabaseProductName());
            } catch (SQLException e) {
                throw new IllegalStateException("cannot reach the outbox datasource " + settings.dataSource(), e);
            }
            dialect = known;
        }
        return known;
    }

    private DataSource dataSource() {
        DataSource known = dataSource;
        if (known == null) {
            known = lookup(settings.dataSource());
            dataSource = known;
        }
        return known;
    }

    /** Looks a datasource up by JNDI name; names the variable when the name is wrong. */
    private static DataSource lookup(String jndiName) {
        try {
            return InitialContext.doLookup(jndiName);
        } catch (NamingException e) {
            throw new IllegalStateException("no datasource at JNDI name '" + jndiName + "' (setting "
                    + Settings.DATASOURCE + ")", e);
        }
    }
}
