package dev.outbox.inbox;

import dev.outbox.config.OutboxSettings;
import dev.outbox.event.EventId;
import dev.outbox.record.NoTransactionException;
import dev.outbox.schema.Dialect;
import dev.outbox.schema.OutboxDataSource;
import jakarta.annotation.Resource;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.transaction.Status;
import jakarta.transaction.TransactionSynchronizationRegistry;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;

/**
 * The consumer side's idempotency (R5.1): in the consumer's own transaction, mark the event processed before
 * the business change runs. Only the first mark lets the change run; both commit or roll back together
 * (R5.3), so a failed change leaves no mark and the redelivery runs it again (R7.6).
 */
@ApplicationScoped
public class Inbox {

    @Inject
    OutboxDataSource database;

    @Inject
    OutboxSettings settings;

    @Resource
    TransactionSynchronizationRegistry transactions;

    /** What the inbox decided for one delivery. */
    public enum Receipt {
        /** First delivery to this consumer: apply the business change. */
        FIRST,
        /** Already processed by this consumer: skip the change, acknowledge the message (R5.5). */
        DUPLICATE
    }

    public Receipt receive(String consumer, EventId eventId, String aggregateType, String aggregateId,
                           Long aggregateVersion) {
        if (transactions.getTransactionStatus() != Status.STATUS_ACTIVE) {
            // Outside a transaction the mark and the change could not commit together (R5.3).
            throw new NoTransactionException();
        }
        OffsetDateTime now = OffsetDateTime.now(ZoneOffset.UTC);
        Dialect dialect = database.dialect();
        try (Connection connection = database.connect()) {
            if (dialect.markProcessed(connection, consumer, eventId.value(), aggregateType, aggregateId,
                    aggregateVersion, now, now.plus(settings.inboxRetention()))) {
                return Receipt.FIRST;
            }
            try (PreparedStatement count = connection.prepareStatement(Dialect.INBOX_COUNT_DUPLICATE)) {
                count.setString(1, consumer);
                count.setObject(2, eventId.value());
                count.executeUpdate();
            }
            return Receipt.DUPLICATE;
        } catch (SQLException e) {
            throw new IllegalStateException("inbox mark failed for consumer " + consumer + ", event " + eventId, e);
        }
    }
}
