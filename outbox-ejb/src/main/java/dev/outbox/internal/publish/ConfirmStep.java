package dev.outbox.internal.publish;

import dev.outbox.internal.persistence.OutboxDataSource;
import dev.outbox.internal.protocol.Confirm;
import dev.outbox.internal.protocol.Outcome;
import jakarta.ejb.Stateless;
import jakarta.ejb.TransactionAttribute;
import jakarta.ejb.TransactionAttributeType;
import jakarta.inject.Inject;

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
        Confirm.Confirmed confirmed = new Confirm(database.dialect(), ThreadLocalRandom::current)
                .record(database, claimer, outcomes, settings.backoff(), settings::isStrict);
        if (!outcomes.isEmpty()) {
            Failpoint.BEFORE_CONFIRM_COMMIT.reach();
        }
        return confirmed;
    }
}
