package dev.outbox.internal.inbox.kafka;

import dev.outbox.internal.config.Settings;
import dev.outbox.kafka.InboxedEvent;
import dev.outbox.kafka.KafkaInbox;
import dev.outbox.Inbox;
import dev.outbox.internal.inbox.InboxTransaction;
import jakarta.annotation.PostConstruct;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import org.eclipse.microprofile.config.Config;
import org.eclipse.microprofile.config.ConfigProvider;

import java.sql.SQLException;
import java.sql.SQLTransientException;
import java.util.function.Consumer;
import java.util.logging.Logger;

/**
 * One Kafka record through the inbox, for both ways of consuming (the {@link KafkaInbox} poller and Reactive
 * Messaging): the mark and the business change in one new transaction (R5.1, R5.3), duplicates absorbed and
 * counted, a version gap held for the gap window (R5.7), a change that keeps failing retried
 * {@code outbox.inbox.max-attempts} times and then parked, a database outage retried until it ends. It returns
 * only when the record is done with: then, and only then, may its offset be committed (R5.5).
 */
@ApplicationScoped
public class InboxDelivery {

    private static final Logger LOG = Logger.getLogger(InboxDelivery.class.getName());
    private static final long MAX_PAUSE_MS = 5_000;

    @Inject
    Inbox inbox;

    @Inject
    InboxTransaction transaction;

    private int maxAttempts;

    @PostConstruct
    void configure() {
        Config config = ConfigProvider.getConfig();
        maxAttempts = Settings.INBOX_MAX_ATTEMPTS.integer(name -> config.getOptionalValue(name, String.class));
    }

    /**
     * @param park called with the failure class when the change failed {@code max-attempts} times; it must not
     *             return before the record is parked (a dead-letter topic), since the offset is committed next
     */
    public void deliver(String consumer, InboxedEvent event, String position, Consumer<InboxedEvent> change,
                        Consumer<String> park) {
        int failures = 0;
        while (true) {
            try {
                Inbox.Receipt receipt = transaction.run(() -> {
                    Inbox.Receipt decided = inbox.receive(consumer, event.eventId(), event.aggregateType(),
                            event.aggregateId(), event.aggregateVersion(), event.ordering());
                    if (decided == Inbox.Receipt.HELD) {
                        throw new Held();
                    }
                    if (decided == Inbox.Receipt.FIRST) {
                        change.accept(event);
                    }
                    return decided;
                });
                if (receipt == Inbox.Receipt.DUPLICATE) {
                    LOG.info(() -> "consumer " + consumer + " absorbed duplicate " + event.describe() + ", broker id "
                            + position);
                }
                return;
            } catch (Held held) {
                // R5.7: the mark rolled back; the hold is kept (InboxHolds), and the inbox releases the event once
                // the gap window has passed since the first hold.
                pause(Inbox.HOLD_PAUSE.toMillis());
            } catch (RuntimeException e) {
                if (isOutage(e)) {
                    LOG.warning(() -> "consumer " + consumer + " cannot reach its database for " + event.describe()
                            + " (" + e.getClass().getName() + "); retrying until it is back");
                    pause(MAX_PAUSE_MS);
                    continue;
                }
                failures++;
                int attempt = failures;
                if (failures >= maxAttempts) {
                    park.accept(rootClass(e));
                    return;
                }
                LOG.warning(() -> "consumer " + consumer + " failed on " + event.describe() + ", attempt " + attempt
                        + " of " + maxAttempts + ", broker id " + position + ": " + rootClass(e));
                pause(Math.min(MAX_PAUSE_MS, 200L << Math.min(attempt, 10)));
            }
        }
    }

    /**
     * H2's own codes for a database that went away (it does not use SQLSTATE class 08): connection broken, object
     * closed, database closed (twice).
     */
    private static final java.util.Set<String> H2_CONNECTION_LOST = java.util.Set.of("90067", "90007", "90098", "90121");

    /** A database that is away, not a change that fails: connection errors, deadlocks, serialization failures. */
    static boolean isOutage(Throwable failure) {
        for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
            if (cause instanceof SQLTransientException) {
                return true;
            }
            if (cause instanceof SQLException sql && sql.getSQLState() != null
                    && (sql.getSQLState().startsWith("08") || sql.getSQLState().equals("40001")
                    || sql.getSQLState().equals("40P01") || sql.getSQLState().equals("57P01")
                    || H2_CONNECTION_LOST.contains(sql.getSQLState()))) {
                return true;
            }
            if (cause.getCause() == cause) {
                break;
            }
        }
        return false;
    }

    static String rootClass(Throwable failure) {
        Throwable root = failure;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        return root.getClass().getSimpleName();
    }

    static void pause(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while retrying an inbox delivery", e);
        }
    }

    /** Thrown inside the transaction so the held mark rolls back. */
    private static final class Held extends RuntimeException {
        Held() {
            super(null, null, false, false);
        }
    }
}
