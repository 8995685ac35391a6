package dev.outbox.internal.persistence;

import dev.outbox.internal.config.OutboxSettings;
import dev.outbox.internal.config.Settings;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.event.Startup;
import jakarta.inject.Inject;
import jakarta.transaction.TransactionSynchronizationRegistry;

import javax.naming.InitialContext;
import javax.naming.NamingException;

/**
 * The server's transaction registry ({@code outbox.transaction-registry}), looked up by name at first use rather
 * than injected with {@code @Resource}: a bean of the EAR's {@code lib/} can be created on a thread that has no
 * {@code java:comp} (WildFly's Reactive Messaging connector calls on a Vert.x event loop), where the injection
 * fails and every record would be parked. WildFly's config names its global binding instead.
 */
@ApplicationScoped
public class OutboxTransactions {

    @Inject
    OutboxSettings settings;

    private volatile TransactionSynchronizationRegistry registry;

    /** For tests of pure logic: a registry given, never looked up. */
    public static OutboxTransactions of(TransactionSynchronizationRegistry registry) {
        OutboxTransactions transactions = new OutboxTransactions();
        transactions.registry = registry;
        return transactions;
    }

    /** A wrong name stops the start, naming the variable, instead of failing (and parking) every delivery. */
    void resolveAtStart(@Observes Startup startup) {
        registry();
    }

    public TransactionSynchronizationRegistry registry() {
        TransactionSynchronizationRegistry known = registry;
        if (known == null) {
            String name = settings.transactionRegistry();
            try {
                known = InitialContext.doLookup(name);
            } catch (NamingException e) {
                throw new IllegalStateException("no TransactionSynchronizationRegistry at JNDI name '" + name
                        + "' (setting " + Settings.TRANSACTION_REGISTRY + ")", e);
            }
            registry = known;
        }
        return known;
    }
}
