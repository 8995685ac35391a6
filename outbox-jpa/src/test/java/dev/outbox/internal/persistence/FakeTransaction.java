package dev.outbox.internal.persistence;

import jakarta.transaction.Status;
import jakarta.transaction.Synchronization;
import jakarta.transaction.TransactionSynchronizationRegistry;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** A JTA transaction as the registry shows it, for tests of pure logic: status, resources, synchronizations. */
public final class FakeTransaction implements TransactionSynchronizationRegistry {
    public int status = Status.STATUS_ACTIVE;
    public boolean rollbackOnly;
    public final Map<Object, Object> resources = new HashMap<>();
    public final List<Synchronization> synchronizations = new ArrayList<>();

    /** Ends the transaction as the server would: every synchronization hears the outcome. */
    public void complete(int outcome) {
        synchronizations.forEach(s -> s.afterCompletion(outcome));
    }

    @Override
    public Object getTransactionKey() {
        return this;
    }

    @Override
    public void putResource(Object key, Object value) {
        resources.put(key, value);
    }

    @Override
    public Object getResource(Object key) {
        return resources.get(key);
    }

    @Override
    public void registerInterposedSynchronization(Synchronization sync) {
        synchronizations.add(sync);
    }

    @Override
    public int getTransactionStatus() {
        return status;
    }

    @Override
    public void setRollbackOnly() {
        rollbackOnly = true;
    }

    @Override
    public boolean getRollbackOnly() {
        return rollbackOnly;
    }
}
