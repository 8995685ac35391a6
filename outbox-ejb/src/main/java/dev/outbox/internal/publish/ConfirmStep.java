package dev.outbox.internal.publish;

import dev.outbox.internal.persistence.Sql;
import dev.outbox.internal.persistence.OutboxRows;
import dev.outbox.internal.persistence.Delivery;
import dev.outbox.internal.persistence.OutboxDataSource;
import dev.outbox.spi.OutboundEvent;
import dev.outbox.spi.SendDeadline;
import dev.outbox.spi.SendResult;
import dev.outbox.internal.transport.StrictRuns;
import jakarta.ejb.Stateless;
import jakarta.ejb.TransactionAttribute;
import jakarta.ejb.TransactionAttributeType;
import jakarta.inject.Inject;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.function.Consumer;
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

    /**
     * Deliveries through the dialect's batch confirm (one statement on PostgreSQL), parks and retries as one JDBC
     * batch each, so a confirm costs a few round trips per batch rather than one per event; each row's answer
     * still tells whether the claim was still ours.
     */
    @TransactionAttribute(TransactionAttributeType.REQUIRES_NEW)
    public Confirmed record(String claimer, List<Outcome> outcomes, Backoff backoff, PublisherSettings settings) {
        List<Outcome> delivered = new ArrayList<>();
        List<Outcome> parked = new ArrayList<>();
        List<Outcome> retried = new ArrayList<>();
        List<Outcome> notSent = new ArrayList<>();
        for (Outcome outcome : outcomes) {
            SendResult result = outcome.result();
            (result instanceof SendResult.Delivered ? delivered
                    : result instanceof SendResult.PermanentFailure ? parked
                    : neverHandedOver(result) ? notSent : retried).add(outcome);
        }
        int confirmed;
        int parkedNow;
        int retriedNow;
        try (Connection connection = database.connect()) {
            // The database's clock, like the claim's: a retry is due by the same clock that checks it (R4.4).
            OffsetDateTime now = Sql.clock(connection);
            confirmed = confirmDelivered(connection, claimer, now, delivered);
            parkedNow = update(connection, OutboxRows.PARK, claimer, parked, (park, outcome) -> {
                park.setString(1, ((SendResult.PermanentFailure) outcome.result()).errorClass());
                park.setObject(2, now);
                return 3;
            }, outcome -> LOG.warning(() -> "parked " + outcome.event().describe() + " after "
                    + ((SendResult.PermanentFailure) outcome.result()).errorClass()
                    + (settings.isStrict(outcome.event().event().eventType())
                    ? "; later versions of " + outcome.event().event().aggregateType() + "/"
                    + outcome.event().event().aggregateId() + " are blocked (strict ordering) until repaired"
                    : "; later versions of its aggregate go on (independent ordering)")));
            retriedNow = update(connection, OutboxRows.RETRY_LATER, claimer, retried, (retry, outcome) -> {
                retry.setObject(1, now.plus(backoff.after(outcome.event().attempt())));
                retry.setString(2, errorClassOf(outcome.result()));
                return 3;
            }, outcome -> LOG.info(() -> "retry " + outcome.event().describe() + " after "
                    + errorClassOf(outcome.result()) + " at " + now.plus(backoff.after(outcome.event().attempt()))));
            retriedNow += update(connection, OutboxRows.RETRY_NOT_SENT, claimer, notSent, (retry, outcome) -> {
                retry.setObject(1, now);
                return 2;
            }, outcome -> LOG.fine(() -> "not sent, due again: " + outcome.event().describe() + " ("
                    + errorClassOf(outcome.result()) + ")"));
        } catch (SQLException e) {
            // An unknown outcome for the whole batch: the leases run out and the rows are sent again (R4.4).
            throw new IllegalStateException("outbox confirm failed for claimer " + claimer, e);
        }
        if (!outcomes.isEmpty()) {
            Failpoint.BEFORE_CONFIRM_COMMIT.reach();
        }
        return new Confirmed(confirmed, retriedNow, parkedNow,
                outcomes.size() - confirmed - retriedNow - parkedNow);
    }

    /** The common case, in the dialect's one-statement-per-batch form; logs each lease lost. */
    private int confirmDelivered(Connection connection, String claimer, OffsetDateTime now, List<Outcome> delivered)
            throws SQLException {
        List<Delivery> deliveries = new ArrayList<>(delivered.size());
        for (Outcome outcome : delivered) {
            SendResult.Delivered ok = (SendResult.Delivered) outcome.result();
            deliveries.add(new Delivery(outcome.event().id().value(), outcome.event().leaseVersion(),
                    ok.brokerMessageId(), ok.partition(), ok.offset()));
        }
        Set<UUID> confirmed = database.dialect().confirm(connection, claimer, now, deliveries);
        for (Outcome outcome : delivered) {
            if (!confirmed.contains(outcome.event().id().value())) {
                leaseLost(claimer, outcome);
            } else {
                LOG.fine(() -> "delivered " + outcome.event().describe() + " broker id "
                        + ((SendResult.Delivered) outcome.result()).brokerMessageId());
            }
        }
        return confirmed.size();
    }

    /**
     * The lease ran out and another claimer took the row: its result stands; our send (if it happened) was a
     * duplicate the consumers' inboxes absorb (R4.3).
     */
    private static void leaseLost(String claimer, Outcome outcome) {
        LOG.info(() -> "lease lost before confirm of " + outcome.event().describe() + " by " + claimer
                + ": result " + outcome.result() + " discarded");
    }

    /** Binds an outcome's own columns from 1 on and returns the index where the claim's columns start. */
    @FunctionalInterface
    private interface Binder {
        int bind(PreparedStatement statement, Outcome outcome) throws SQLException;
    }

    /**
     * Parks and retries (the rare outcomes): one conditional statement per outcome as a JDBC batch; returns how
     * many rows were still ours.
     */
    private static int update(Connection connection, String sql, String claimer, List<Outcome> outcomes,
                              Binder binder, Consumer<Outcome> changedLog) throws SQLException {
        if (outcomes.isEmpty()) {
            return 0;
        }
        int[] counts;
        try (PreparedStatement statement = connection.prepareStatement(sql)) {
            for (Outcome outcome : outcomes) {
                bindClaim(statement, binder.bind(statement, outcome), claimer, outcome.event());
                statement.addBatch();
            }
            counts = statement.executeBatch();
        }
        int changed = 0;
        for (int i = 0; i < outcomes.size(); i++) {
            Outcome outcome = outcomes.get(i);
            // SUCCESS_NO_INFO: the driver ran the row but did not count it; the statement is conditional, so
            // only an explicit 0 means the claim was no longer ours.
            if (counts[i] == 0) {
                leaseLost(claimer, outcome);
            } else {
                changed++;
                changedLog.accept(outcome);
            }
        }
        return changed;
    }

    /**
     * A version held back behind an earlier one of its run, or left when the lease ran short: never handed to a
     * broker, so it costs no attempt and no backoff, and stays due (the claim's ordering still gates it).
     */
    private static boolean neverHandedOver(SendResult result) {
        return result instanceof SendResult.TransientFailure failure
                && (failure.errorClass().equals(StrictRuns.EARLIER_VERSION_NOT_DELIVERED)
                || failure.errorClass().equals(SendDeadline.LEASE_DEADLINE));
    }

    private static String errorClassOf(SendResult result) {
        return result instanceof SendResult.TransientFailure transientFailure
                ? transientFailure.errorClass() : ((SendResult.UnknownOutcome) result).errorClass();
    }

    private static void bindClaim(PreparedStatement statement, int index, String claimer, OutboundEvent event)
            throws SQLException {
        statement.setObject(index, event.id().value());
        statement.setString(index + 1, claimer);
        statement.setLong(index + 2, event.leaseVersion());
    }
}
