package dev.outbox.publish;

import dev.outbox.schema.Dialect;
import dev.outbox.schema.OutboxDataSource;
import dev.outbox.transport.OutboundEvent;
import dev.outbox.transport.SendResult;
import jakarta.ejb.Stateless;
import jakarta.ejb.TransactionAttribute;
import jakarta.ejb.TransactionAttributeType;
import jakarta.inject.Inject;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Types;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.List;
import java.util.logging.Logger;

/**
 * Writes what the broker said, in a transaction of its own after the send. Every update is conditional on
 * the claim (event id, claimer, lease version): a publisher whose lease ran out never overwrites the result
 * of the claimer that took over (R4.2).
 */
@Stateless
public class ConfirmStep {

    private static final Logger LOG = Logger.getLogger(ConfirmStep.class.getName());

    @Inject
    OutboxDataSource database;

    /** Counts of what one batch's confirm changed. */
    public record Confirmed(int delivered, int retried, int parked, int leaseLost) {
    }

    @TransactionAttribute(TransactionAttributeType.REQUIRES_NEW)
    public Confirmed record(String claimer, List<Outcome> outcomes, Backoff backoff, PublisherSettings settings) {
        OffsetDateTime now = OffsetDateTime.now(ZoneOffset.UTC);
        int delivered = 0;
        int retried = 0;
        int parked = 0;
        int lost = 0;
        try (Connection connection = database.connect();
             PreparedStatement confirm = connection.prepareStatement(Dialect.CONFIRM);
             PreparedStatement retry = connection.prepareStatement(Dialect.RETRY_LATER);
             PreparedStatement park = connection.prepareStatement(Dialect.PARK)) {
            for (Outcome outcome : outcomes) {
                OutboundEvent event = outcome.event();
                int changed;
                SendResult result = outcome.result();
                if (result instanceof SendResult.Delivered ok) {
                    confirm.setObject(1, now);
                    confirm.setString(2, ok.brokerMessageId());
                    setNullable(confirm, 3, ok.partition(), Types.INTEGER);
                    setNullable(confirm, 4, ok.offset(), Types.BIGINT);
                    bindClaim(confirm, 5, claimer, event);
                    changed = confirm.executeUpdate();
                    if (changed == 1) {
                        delivered++;
                        LOG.fine(() -> "delivered " + event.describe() + " broker id " + ok.brokerMessageId());
                    }
                } else if (result instanceof SendResult.PermanentFailure failure) {
                    park.setString(1, failure.errorClass());
                    bindClaim(park, 2, claimer, event);
                    changed = park.executeUpdate();
                    if (changed == 1) {
                        parked++;
                        LOG.warning(() -> "parked " + event.describe() + " after " + failure.errorClass()
                                + (settings.isStrict(event.event().eventType())
                                ? "; later versions of " + event.event().aggregateType() + "/"
                                + event.event().aggregateId() + " are blocked (strict ordering) until repaired"
                                : "; later versions of its aggregate go on (independent ordering)"));
                    }
                } else {
                    String errorClass = result instanceof SendResult.TransientFailure transientFailure
                            ? transientFailure.errorClass() : ((SendResult.UnknownOutcome) result).errorClass();
                    changed = retryLater(retry, claimer, event, errorClass, backoff, now);
                    retried += changed;
                }
                if (changed == 0) {
                    // The lease ran out and another claimer took the row: its result stands; our send (if it
                    // happened) was a duplicate the consumers' inboxes absorb (R4.3).
                    lost++;
                    LOG.info(() -> "lease lost before confirm of " + event.describe() + " by " + claimer
                            + ": result " + outcome.result() + " discarded");
                }
            }
        } catch (SQLException e) {
            // An unknown outcome for the whole batch: the leases run out and the rows are sent again (R4.4).
            throw new IllegalStateException("outbox confirm failed for claimer " + claimer, e);
        }
        if (!outcomes.isEmpty()) {
            Failpoint.BEFORE_CONFIRM_COMMIT.reach();
        }
        return new Confirmed(delivered, retried, parked, lost);
    }

    private static int retryLater(PreparedStatement retry, String claimer, OutboundEvent event, String errorClass,
                                  Backoff backoff, OffsetDateTime now) throws SQLException {
        OffsetDateTime next = now.plus(backoff.after(event.attempt()));
        retry.setObject(1, next);
        retry.setString(2, errorClass);
        bindClaim(retry, 3, claimer, event);
        int changed = retry.executeUpdate();
        if (changed == 1) {
            LOG.info(() -> "retry " + event.describe() + " after " + errorClass + " at " + next);
        }
        return changed;
    }

    private static void bindClaim(PreparedStatement statement, int index, String claimer, OutboundEvent event)
            throws SQLException {
        statement.setObject(index, event.id().value());
        statement.setString(index + 1, claimer);
        statement.setLong(index + 2, event.leaseVersion());
    }

    private static void setNullable(PreparedStatement statement, int index, Number value, int type) throws SQLException {
        if (value == null) {
            statement.setNull(index, type);
        } else {
            statement.setObject(index, value);
        }
    }
}
