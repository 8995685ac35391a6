package dev.outbox;

import dev.outbox.internal.persistence.InboxMarks;
import dev.outbox.internal.inbox.InboxHolds;
import dev.outbox.internal.inbox.InboxReceived;
import dev.outbox.internal.inbox.VersionGate;
import dev.outbox.internal.persistence.OutboxTransactions;
import dev.outbox.internal.config.OutboxSettings;
import dev.outbox.internal.persistence.Dialect;
import dev.outbox.internal.persistence.OutboxDataSource;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Event;
import jakarta.inject.Inject;
import jakarta.transaction.Status;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.logging.Logger;

/**
 * The consumer side's idempotency (R5.1): in the consumer's own transaction, mark the event processed before
 * the business change runs. Only the first mark lets the change run; both commit or roll back together
 * (R5.3), so a failed change leaves no mark and the redelivery runs it again (R7.6). Versions of one aggregate
 * are checked too, for strictly ordered types ({@link VersionGate}, R5.7).
 */
@ApplicationScoped
public class Inbox {

    private static final Logger LOG = Logger.getLogger(Inbox.class.getName());

    @Inject
    OutboxDataSource database;

    @Inject
    OutboxSettings settings;

    @Inject
    InboxHolds holds;

    @Inject
    OutboxTransactions transactions;

    @Inject
    Event<InboxReceived> received;

    /** What the inbox decided for one delivery. */
    public enum Receipt {
        /** First delivery to this consumer, in order (or of an independent type): apply the business change. */
        FIRST,
        /** Already processed by this consumer: skip the change, acknowledge the message (R5.5). */
        DUPLICATE,
        /**
         * At or below a version this consumer has passed, with no mark left: a replay after the mark's retention, or
         * a version passed over after a reported gap. Marked processed, reported, the change is skipped (R5.7).
         */
        STALE,
        /** A strict type's earlier versions are missing: roll this delivery back, it comes again (R5.7). */
        HELD
    }

    /**
     * @param ordering the event type's policy, from the message ({@link dev.outbox.OutboxHeaders#ORDERING});
     *                 only strict types are gated on versions
     */
    public Receipt receive(String consumer, EventId eventId, String aggregateType, String aggregateId,
                           Long aggregateVersion, Ordering ordering) {
        Receipt receipt = decide(consumer, eventId, aggregateType, aggregateId, aggregateVersion, ordering);
        // R6.1: duplicate hit rate and publish-to-consume latency, counted in memory by whoever observes it.
        received.fire(new InboxReceived(consumer, eventId, receipt));
        return receipt;
    }

    private Receipt decide(String consumer, EventId eventId, String aggregateType, String aggregateId,
                           Long aggregateVersion, Ordering ordering) {
        if (transactions.registry().getTransactionStatus() != Status.STATUS_ACTIVE) {
            // Outside a transaction the mark and the change could not commit together (R5.3).
            throw new NoTransactionException();
        }
        Dialect dialect = database.dialect();
        try (Connection connection = database.connect()) {
            // The mark's retention is days long: this server's clock is good enough for it.
            OffsetDateTime now = OffsetDateTime.now(ZoneOffset.UTC);
            if (!dialect.markProcessed(connection, consumer, eventId.value(), aggregateType, aggregateId,
                    aggregateVersion, now, now.plus(settings.inboxRetention()))) {
                countDuplicate(connection, consumer, eventId);
                return Receipt.DUPLICATE;
            }
            if (aggregateVersion == null || aggregateType == null || aggregateId == null) {
                return Receipt.FIRST;
            }
            String what = eventId + " of " + aggregateType + "/" + aggregateId + " at version " + aggregateVersion
                    + " (" + ordering.header() + ") for consumer " + consumer;
            VersionGate gate = new VersionGate(dialect, settings.inboxGapWindow(), holds);
            return switch (gate.pass(connection, consumer, eventId, aggregateType, aggregateId, aggregateVersion,
                    ordering)) {
                case HOLD -> {
                    LOG.fine(() -> "holding " + what + ": earlier versions have not arrived");
                    yield Receipt.HELD;
                }
                case APPLY_AFTER_GAP -> {
                    LOG.severe(() -> "version gap: applying " + what + " after holding it for the gap window ("
                            + settings.inboxGapWindow().toMillis() + " ms); the missing versions never arrived:"
                            + " check the source of truth");
                    yield Receipt.FIRST;
                }
                case STALE -> {
                    LOG.warning(() -> "stale version: " + what + " is at or below the version this consumer has"
                            + " passed and has no mark left (a replay after the mark's retention, or a version passed"
                            + " over after a reported gap); recorded as processed, not applied");
                    yield Receipt.STALE;
                }
                case APPLY -> Receipt.FIRST;
            };
        } catch (SQLException e) {
            throw new IllegalStateException("inbox mark failed for consumer " + consumer + ", event " + eventId, e);
        }
    }

    private static void countDuplicate(Connection connection, String consumer, EventId eventId) throws SQLException {
        try (PreparedStatement count = connection.prepareStatement(InboxMarks.INBOX_COUNT_DUPLICATE)) {
            count.setString(1, consumer);
            count.setObject(2, eventId.value());
            count.executeUpdate();
        }
    }
}
