package dev.outbox.internal.persistence;

import java.sql.SQLTransientConnectionException;

/**
 * The outbox's datasource is set up to break a guarantee silently, as the start-up check found it
 * ({@link DataSourceCheck}): a later write is refused with the same words. Transient for the callers that tell a
 * poison event from an outage, like {@link NotInTransactionException}: a consumer waits until the datasource is fixed.
 */
public class DataSourceRefusedException extends SQLTransientConnectionException {

    DataSourceRefusedException(IllegalStateException refusal) {
        super(refusal.getMessage(), refusal);
    }
}
