package dev.outbox.inbox;

import dev.outbox.config.OutboxSettings;
import dev.outbox.event.EventId;
import dev.outbox.record.NoTransactionException;
import dev.outbox.schema.Dialect;
import dev.outbox.schema.OutboxDataSource;
import jakarta.annotation.Resource;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Event;
import jakarta.inject.Inject;
import jakarta.transaction.Status;
import jakarta.transaction.TransactionSynchronizationRegistry;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.logging.Logger;

/**
 * The consumer side's idempotency (R5.1): in the consumer's own transaction, mark the event processed before
 * the business change runs. Only the first mark lets the change run; both commit or roll back together
 * (R5.3), so a failed change leaves no mark and the redelivery runs it again (R7.6). Versions of one aggregate
 * are checked too ({@link VersionCheck}, R5.7).
 */
@ApplicationScoped
public class Inbox {

    private static final Logger LOG = Logger.getLogger(Inbox.class.getName());
    /** Held events are remembered in memory only: a restart just restarts their gap window. */
    private static final int MAX_HELD = 10_000;

    @Inject
    OutboxDataSource database;

    @Inject
    OutboxSettings settings;

    @Resource
    TransactionSynchronizationRegistry transactions;

    @Inject
    Event<InboxReceived> received;

    private final Map<EventId, Instant> heldSince = new ConcurrentHashMap<>();

    /** What the inbox decided for one delivery. */
    public enum Receipt {
        /** First delivery to this consumer, in order: apply the business change. */
        FIRST,
        /** Already processed by this consumer: skip the change, acknowledge the message (R5.5). */
        DUPLICATE,
        /** Older than a version already applied: marked processed, the change is skipped (R5.7). */
        STALE,
        /** Earlier versions are missing: roll this delivery back so the broker redelivers it later (R5.7). */
        HELD
    }

    public Receipt receive(String consumer, EventId eventId, String aggregateType, String aggregateId,
                           Long aggregateVersion) {
        Receipt receipt = decide(consumer, eventId, aggregateType, aggregateId, aggregateVersion);
        // R6.1: duplicate hit rate and publish-to-consume latency, counted in memory by whoever observes it.
        received.fire(new InboxReceived(consumer, eventId, receipt));
        return receipt;
    }

    private Receipt decide(String consumer, EventId eventId, String aggregateType, String aggregateId,
                           Long aggregateVersion) {
        if (transactions.getTransactionStatus() != Status.STATUS_ACTIVE) {
            // Outside a transaction the mark and the change could not commit together (R5.3).
            throw new NoTransactionException();
        }
        OffsetDateTime now = OffsetDateTime.now(ZoneOffset.UTC);
        Dialect dialect = database.dialect();
        try (Connection connection = database.connect()) {
            if (!dialect.markProcessed(connection, consumer, eventId.value(), aggregateType, aggregateId,
                    aggregateVersion, now, now.plus(settings.inboxRetention()))) {
                countDuplicate(connection, consumer, eventId);
                return Receipt.DUPLICATE;
            }
            if (aggregateVersion == null || aggregateType == null || aggregateId == null) {
                return Receipt.FIRST;
            }
            Long last = lastVersion(connection, consumer, eventId, aggregateType, aggregateId);
            Instant firstHeld = heldSince.getOrDefault(eventId, Instant.now());
            Duration held = Duration.between(firstHeld, Instant.now());
            String what = eventId + " of " + aggregateType + "/" + aggregateId + " at version " + aggregateVersion
                    + " for consumer " + consumer + " (last applied: " + last + ")";
            switch (VersionCheck.decide(last, aggregateVersion, held, settings.inboxGapWindow())) {
                case HOLD -> {
                    if (heldSince.size() > MAX_HELD) {
                        heldSince.clear();
                    }
                    heldSince.putIfAbsent(eventId, firstHeld);
                    LOG.fine(() -> "holding " + what + ": earlier versions have not arrived");
                    return Receipt.HELD;
                }
                case APPLY_AFTER_GAP -> {
                    heldSince.remove(eventId);
                    LOG.severe(() -> "version gap: applying " + what + " after holding it " + held.toMillis()
                            + " ms; the missing versions never arrived: check the source of truth");
                    return Receipt.FIRST;
                }
                case STALE -> {
                    LOG.warning(() -> "stale version: " + what + " is older than one already applied; skipped");
                    return Receipt.STALE;
                }
                default -> {
                    heldSince.remove(eventId);
                    return Receipt.FIRST;
                }
            }
        } catch (SQLException e) {
            throw new IllegalStateException("inbox mark failed for consumer " + consumer + ", event " + eventId, e);
        }
    }

    private static void countDuplicate(Connection connection, String consumer, EventId eventId) throws SQLException {
        try (PreparedStatement count = connection.prepareStatement(Dialect.INBOX_COUNT_DUPLICATE)) {
            count.setString(1, consumer);
            count.setObject(2, eventId.value());
            count.executeUpdate();
        }
    }

    private static Long lastVersion(Connection connection, String consumer, EventId eventId, String aggregateType,
                                    String aggregateId) throws SQLException {
        try (PreparedStatement select = connection.prepareStatement(Dialect.INBOX_LAST_VERSION)) {
            select.setString(1, consumer);
            select.setString(2, aggregateType);
            select.setString(3, aggregateId);
            select.setObject(4, eventId.value());
            try (ResultSet rs = select.executeQuery()) {
                rs.next();
                long last = rs.getLong(1);
                return rs.wasNull() ? null : last;
            }
        }
    }
}
