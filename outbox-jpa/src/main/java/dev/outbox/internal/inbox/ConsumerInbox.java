package dev.outbox.internal.inbox;

import dev.outbox.Inbox;
import dev.outbox.NoTransactionException;
import dev.outbox.internal.config.OutboxSettings;
import dev.outbox.internal.logging.CoreMessages;
import dev.outbox.internal.persistence.InboxStore;
import dev.outbox.internal.persistence.OutboxDataSource;
import dev.outbox.internal.persistence.OutboxTransactions;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Event;
import jakarta.inject.Inject;
import jakarta.transaction.Status;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import java.util.logging.Logger;

/**
 * The {@link Resequencer} on the consumer transaction's connection (the outbox datasource, enlisted in the active
 * JTA transaction): one received event in, one result out, each decision reported (R6.1) and logged by ids (R6.3).
 */
@ApplicationScoped
public class ConsumerInbox {

    private static final Logger LOG = Logger.getLogger(ConsumerInbox.class.getName());

    private final java.util.Set<String> passedOverTypes = java.util.concurrent.ConcurrentHashMap.newKeySet();

    @Inject
    OutboxDataSource database;

    @Inject
    OutboxSettings settings;

    @Inject
    OutboxTransactions transactions;

    @Inject
    Event<InboxReceived> receivedEvents;

    /**
     * @throws NoTransactionException outside an active transaction: the mark and the change could not commit
     *                                together (R5.3)
     * @throws Exception              whatever the change threw; the caller rolls the transaction back
     */
    public Resequencer.Result receive(String consumer, Received received, Resequencer.Change change,
                                      long releaseBelow) throws Exception {
        requireTransaction();
        Resequencer.Result result;
        try (Connection connection = database.connect()) { // R1.1: the mark commits with the change or not at all
            result = resequencer(connection).receive(consumer, received, change, releaseBelow);
        } catch (SQLException e) {
            throw new IllegalStateException("inbox of consumer " + consumer + " failed on "
                    + received.event().describe(), e);
        }
        report(consumer, received, result.receipt());
        reportReleased(consumer, result, ", after " + received.event().eventId()
                + " (it waited for the versions before it)");
        return result;
    }

    /** The aggregates of the consumer whose next version waits, ready to be released by a sweep. */
    public List<String[]> ready(String consumer, int limit) throws SQLException {
        requireTransaction();
        try (Connection connection = database.connect()) {
            return resequencer(connection).ready(consumer, limit);
        }
    }

    /** Whether {@code outbox.inbox.advisory-order} names any type: without one, nothing is ever skipped by itself. */
    public boolean hasAdvisoryOrder() {
        return !settings.advisoryOrder().isEmpty();
    }

    /**
     * Skips the consumer's gaps before waiting events of the types {@code outbox.inbox.advisory-order} names, once
     * they waited {@code outbox.inbox.advisory-wait-ms} (R5.7); nothing when the setting names no type.
     */
    public void skipAdvisoryGaps(String consumer, int limit) throws SQLException {
        requireTransaction();
        try (Connection connection = database.connect()) {
            for (Resequencer.Skip skip : resequencer(connection).skipAdvisoryGaps(consumer, settings.advisoryWait(),
                    limit)) {
                CoreMessages.ADVISORY_GAP_SKIPPED.log(LOG,
                        () -> "skipped: consumer " + consumer + " stopped waiting for versions " + skip.from()
                        + " to " + skip.through() + " of " + skip.aggregate() + ": the type after them is in"
                        + " outbox.inbox.advisory-order and waited longer than outbox.inbox.advisory-wait-ms; if they"
                        + " come, those of an advisory type are recorded as skipped and never applied, the others"
                        + " parked as conflicts");
            }
        }
    }

    /** Applies one aggregate's waiting events whose turn came without a delivery (a skip, a failure, a cap). */
    public Resequencer.Result releaseReady(String consumer, String aggregateType, String aggregateId,
                                           Resequencer.Change change, long releaseBelow) throws SQLException {
        requireTransaction();
        try (Connection connection = database.connect()) {
            Resequencer.Result result = resequencer(connection).releaseReady(consumer, aggregateType, aggregateId,
                    change, releaseBelow);
            reportReleased(consumer, result, "");
            return result;
        }
    }

    /** A waiting event's change failed in its turn: recorded on it (its own transaction), reported as a gap. */
    public void successorFailed(String consumer, Received successor, Throwable failure) throws SQLException {
        try (Connection connection = database.connect()) {
            new InboxStore(connection, database.dialect()).waitingFailed(consumer, successor.event().eventId(),
                    failure.getClass().getName());
        }
    }

    /** Each waiting event a release applied: logged by ids (R6.3) and counted as a first delivery (R6.1). */
    private void reportReleased(String consumer, Resequencer.Result result, String after) {
        for (Received successor : result.released()) {
            CoreMessages.APPLIED_IN_TURN.log(LOG,
                    () -> "consumer " + consumer + " applied " + successor.event().describe() + " in its turn" + after);
            receivedEvents.fire(new InboxReceived(consumer, successor.event().eventId(), Inbox.Receipt.FIRST));
        }
    }

    private Resequencer resequencer(Connection connection) {
        return new Resequencer(new InboxStore(connection, database.dialect()), settings.inboxRetention(),
                settings.advisoryOrder(), settings.receives());
    }

    private void requireTransaction() {
        if (transactions.registry().getTransactionStatus() != Status.STATUS_ACTIVE) {
            throw new NoTransactionException();
        }
    }

    private void report(String consumer, Received received, Inbox.Receipt receipt) {
        String what = received.event().describe() + " (" + received.event().ordering().header() + "), broker id "
                + received.brokerId() + ", for consumer " + consumer;
        switch (receipt) {
            case WAITING -> CoreMessages.WAITING.log(LOG,
                    () -> "waiting: " + what + " is stored until the versions before it are applied"
                    + " (R5.7); its message is acknowledged");
            case CONFLICT -> CoreMessages.CONFLICT.log(LOG,
                    () -> "conflict: " + what + " claims a version this consumer already applied"
                    + " or holds under another event id (a fork of the aggregate's history, as after a restore from"
                    + " backup, R7.7); parked at the consumer, not applied: see the runbook, 'Forks'");
            case SKIPPED -> CoreMessages.ARRIVED_AFTER_SKIP.log(LOG,
                    () -> "skipped: " + what + " arrived after an operator skipped its version;"
                    + " recorded as processed, not applied");
            case NOT_RECEIVED -> {
                // R5.7: once per consumer and type, so a type misspelled in the setting shows in the log
                if (passedOverTypes.add(consumer + "/" + received.event().eventType())) {
                    CoreMessages.NOT_RECEIVED.log(LOG, () -> "consumer " + consumer + " passes over events of type "
                            + received.event().eventType() + " (first: " + what + "): outbox.inbox.receives names"
                            + " other types for it; if it should apply them, add " + consumer + ":"
                            + received.event().eventType() + " there");
                }
            }
            default -> {
            }
        }
        // R6.1: duplicate hit rate and publish-to-consume latency, counted in memory by whoever observes it.
        receivedEvents.fire(new InboxReceived(consumer, received.event().eventId(), receipt));
    }
}
