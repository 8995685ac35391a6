package dev.outbox.internal.publish;

import dev.outbox.internal.persistence.OutboxDataSource;
import dev.outbox.internal.protocol.Confirm;
import dev.outbox.internal.protocol.Outcome;
import jakarta.ejb.Stateless;
import jakarta.ejb.TransactionAttribute;
import jakarta.ejb.TransactionAttributeType;
import jakarta.inject.Inject;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The confirm ({@link Confirm}, the protocol's own code) in a transaction of its own after the send (R4.2); the
 * crash window before its commit is a failpoint (R7.2).
 */
@Stateless
public class ConfirmStep {

    @Inject
    OutboxDataSource database;

    @TransactionAttribute(TransactionAttributeType.REQUIRES_NEW)
    public Confirm.Confirmed record(String claimer, List<Outcome> outcomes, PublisherSettings settings) {
        Confirm.Confirmed confirmed;
        try (Connection connection = database.connect()) {
            confirmed = new Confirm(database.dialect(), ThreadLocalRandom::current).record(connection, claimer, outcomes, settings.backoff(), settings::isStrict);
        } catch (SQLException e) {
            // An unknown outcome for the whole batch: the leases run out and the rows are sent again (R4.4).
            throw new IllegalStateException("outbox confirm failed for claimer " + claimer, e);
        }
        if (!outcomes.isEmpty()) {
            Failpoint.BEFORE_CONFIRM_COMMIT.reach();
        }
        return confirmed;
    }
}
