package dev.outbox.internal.protocol;

import dev.outbox.internal.logging.CoreMessages;
import dev.outbox.internal.persistence.ConfirmRows;
import dev.outbox.internal.persistence.Delivery;
import dev.outbox.internal.persistence.Dialect;
import dev.outbox.internal.persistence.OutboxDataSource;
import dev.outbox.internal.persistence.Sql;
import dev.outbox.internal.transport.StrictRuns;
import dev.outbox.spi.OutboundEvent;
import dev.outbox.spi.SendDeadline;
import dev.outbox.spi.SendResult;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.function.Predicate;
import java.util.function.Supplier;
import java.util.logging.Logger;
import java.util.random.RandomGenerator;

/**
 * The publisher's confirm: what each send's result means for its row, written in the caller's transaction after the
 * send (R4.2). Delivered rows are confirmed, deterministic failures parked (R4.5), retryable ones due again after the
 * backoff (R4.4), and events that never reached a broker due again at once with their attempt given back. Every
 * change holds only while the claim is still ours; a lost lease leaves the other claimer's result standing (R4.3).
 *
 * <p>Plain Java over a connection: the EJB shell gives it a transaction of its own, the protocol checker a real
 * database under random interleavings, so both run this same code.
 */
public final class Confirm {

    private static final Logger LOG = Logger.getLogger(Confirm.class.getName());

    /** What a send's result means for the event's row. */
    public enum Verdict {
        /** A broker took it: confirm it delivered. */
        DELIVERED,
        /** A deterministic failure (R4.5): park it for an operator; a strict aggregate waits behind it. */
        PARK,
        /** A transient failure or an unknown outcome: send again after the backoff, the attempt counted (R4.4). */
        RETRY,
        /** Never handed to a broker (held behind an earlier version, or the lease ran short): due again at once. */
        NOT_SENT;

        /** The outcome mapping, the one place that decides it. */
        public static Verdict of(SendResult result) {
            if (result instanceof SendResult.Delivered) {
                return DELIVERED;
            }
            if (result instanceof SendResult.PermanentFailure) {
                return PARK;
            }
            if (result instanceof SendResult.TransientFailure failure
                    && (failure.errorClass().equals(StrictRuns.EARLIER_VERSION_NOT_DELIVERED)
                    || failure.errorClass().equals(SendDeadline.LEASE_DEADLINE))) {
                return NOT_SENT;
            }
            return RETRY;
        }
    }

    /** Counts of what one batch's confirm changed, and the events whose lease another claimer holds now. */
    public record Confirmed(int delivered, int retried, int parked, Set<UUID> leaseLost) {
        public Confirmed {
            leaseLost = Set.copyOf(leaseLost);
        }
    }

    private final Dialect dialect;
    private final Supplier<RandomGenerator> jitter;

    /** @param jitter the backoff's random spread (thread-local in the server, seeded in the checker) */
    public Confirm(Dialect dialect, Supplier<RandomGenerator> jitter) {
        this.dialect = dialect;
        this.jitter = jitter;
    }

    /**
     * {@link #record(Connection, String, List, Backoff, Predicate)} on a connection of the outbox's datasource, in the
     * caller's transaction. A failure is an unknown outcome for the whole batch: the leases run out and the rows are
     * sent again (R4.4).
     */
    public Confirmed record(OutboxDataSource database, String claimer, List<Outcome> outcomes, Backoff backoff,
                            Predicate<String> strict) {
        return database.onConnection(connection -> record(connection, claimer, outcomes, backoff, strict),
                () -> "outbox confirm failed for claimer " + claimer);
    }

    /**
     * Writes a batch's outcomes: deliveries through the dialect's batch confirm (one statement on PostgreSQL), parks
     * and retries as one JDBC batch each, so a confirm costs a few round trips per batch, not one per event.
     *
     * @param strict whether an event type is strictly ordered (only the park's log line says what it blocks)
     */
    public Confirmed record(Connection connection, String claimer, List<Outcome> outcomes, Backoff backoff,
                            Predicate<String> strict) throws SQLException {
        Map<Verdict, List<Outcome>> byVerdict = new EnumMap<>(Verdict.class);
        for (Verdict verdict : Verdict.values()) {
            byVerdict.put(verdict, new ArrayList<>());
        }
        outcomes.forEach(outcome -> byVerdict.get(Verdict.of(outcome.result())).add(outcome));
        // The database's clock, like the claim's: a retry is due by the same clock that checks it (R4.4).
        OffsetDateTime now = Sql.clock(connection);
        RandomGenerator random = jitter.get();

        List<Delivery> deliveries = new ArrayList<>();
        for (Outcome outcome : byVerdict.get(Verdict.DELIVERED)) {
            deliveries.add(deliveryOf(outcome));
        }
        Set<UUID> delivered = dialect.confirm(connection, claimer, now, deliveries);

        List<ConfirmRows.Park> parks = new ArrayList<>();
        for (Outcome outcome : byVerdict.get(Verdict.PARK)) {
            parks.add(new ConfirmRows.Park(claimOf(outcome.event()), errorClassOf(outcome.result())));
        }
        Set<UUID> parked = ConfirmRows.park(connection, claimer, now, parks);

        List<ConfirmRows.Retry> retries = new ArrayList<>();
        for (Outcome outcome : byVerdict.get(Verdict.RETRY)) {
            retries.add(new ConfirmRows.Retry(claimOf(outcome.event()),
                    now.plus(backoff.after(outcome.event().attempt(), random)), errorClassOf(outcome.result())));
        }
        Set<UUID> retried = ConfirmRows.retry(connection, claimer, retries);

        List<ConfirmRows.Claimed> notSent = byVerdict.get(Verdict.NOT_SENT).stream()
                .map(outcome -> claimOf(outcome.event())).toList();
        Set<UUID> dueAgain = ConfirmRows.dueAgain(connection, claimer, now, notSent);

        // R6.6: a broker that took an event the route did not deliver everywhere keeps its body from changing; so
        // does one that took a delivery this confirm could not write (the lease was lost: delivered_at stays null).
        List<ConfirmRows.Accepted> accepted = new ArrayList<>();
        for (Verdict verdict : Verdict.values()) {
            for (Outcome outcome : byVerdict.get(verdict)) {
                if (verdict != Verdict.DELIVERED || !delivered.contains(outcome.event().id().value())) {
                    outcome.acceptedBy().forEach(transport -> accepted.add(new ConfirmRows.Accepted(
                            outcome.event().id().value(), transport)));
                }
            }
        }
        ConfirmRows.accepted(connection, accepted);

        Set<UUID> leaseLost = new HashSet<>();
        for (Outcome outcome : byVerdict.get(Verdict.DELIVERED)) {
            log(delivered, leaseLost, claimer, outcome, () -> "delivered " + outcome.event().describe()
                    + " broker id " + deliveryOf(outcome).brokerMessageId());
        }
        for (Outcome outcome : byVerdict.get(Verdict.PARK)) {
            if (changed(parked, leaseLost, claimer, outcome)) {
                OutboundEvent event = outcome.event();
                CoreMessages.PARKED.log(LOG,
                        () -> "parked " + event.describe() + " after " + errorClassOf(outcome.result())
                        + (strict.test(event.event().eventType())
                        ? "; later versions of " + event.event().aggregateType() + "/" + event.event().aggregateId()
                        + " are blocked (strict ordering) until repaired"
                        : "; later versions of its aggregate go on (independent ordering)"));
            }
        }
        for (int i = 0; i < retries.size(); i++) {
            ConfirmRows.Retry retry = retries.get(i);
            Outcome outcome = byVerdict.get(Verdict.RETRY).get(i);
            if (changed(retried, leaseLost, claimer, outcome)) {
                CoreMessages.RETRY.log(LOG, () -> "retry " + outcome.event().describe() + " after " + retry.errorClass()
                        + " at " + retry.dueAt());
            }
        }
        for (Outcome outcome : byVerdict.get(Verdict.NOT_SENT)) {
            log(dueAgain, leaseLost, claimer, outcome, () -> "not sent, due again: " + outcome.event().describe()
                    + " (" + errorClassOf(outcome.result()) + ")");
        }
        return new Confirmed(delivered.size(), retried.size() + dueAgain.size(), parked.size(), leaseLost);
    }

    private static void log(Set<UUID> changed, Set<UUID> leaseLost, String claimer, Outcome outcome,
                            Supplier<String> fine) {
        if (changed(changed, leaseLost, claimer, outcome)) {
            LOG.fine(fine);
        }
    }

    /**
     * Whether this confirm changed the event's row. If not, the lease ran out and another claimer took the row: its
     * result stands; our send (if it happened) was a duplicate the consumers' inboxes absorb (R4.3).
     */
    private static boolean changed(Set<UUID> changed, Set<UUID> leaseLost, String claimer, Outcome outcome) {
        if (changed.contains(outcome.event().id().value())) {
            return true;
        }
        leaseLost.add(outcome.event().id().value());
        CoreMessages.LEASE_LOST.log(LOG,
                () -> "lease lost before confirm of " + outcome.event().describe() + " by " + claimer
                + ": result " + outcome.result() + " discarded");
        return false;
    }

    private static Delivery deliveryOf(Outcome outcome) {
        OutboundEvent event = outcome.event();
        return outcome.result() instanceof SendResult.Delivered ok
                ? new Delivery(event.id().value(), event.leaseVersion(), ok.brokerMessageId(), ok.partition(), ok.offset())
                : new Delivery(event.id().value(), event.leaseVersion(), null, null, null);
    }

    private static ConfirmRows.Claimed claimOf(OutboundEvent event) {
        return new ConfirmRows.Claimed(event.id().value(), event.leaseVersion());
    }

    private static String errorClassOf(SendResult result) {
        if (result instanceof SendResult.TransientFailure failure) {
            return failure.errorClass();
        }
        if (result instanceof SendResult.UnknownOutcome unknown) {
            return unknown.errorClass();
        }
        return result instanceof SendResult.PermanentFailure failure ? failure.errorClass() : result.toString();
    }
}
