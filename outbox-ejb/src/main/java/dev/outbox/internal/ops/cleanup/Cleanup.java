package dev.outbox.internal.ops.cleanup;

import dev.outbox.internal.config.OutboxSettings;
import dev.outbox.internal.publish.PublisherMessages;
import jakarta.annotation.PostConstruct;
import jakarta.annotation.Resource;
import jakarta.ejb.Singleton;
import jakarta.ejb.Startup;
import jakarta.ejb.Timeout;
import jakarta.ejb.TimerConfig;
import jakarta.ejb.TimerService;
import jakarta.ejb.TransactionAttribute;
import jakarta.ejb.TransactionAttributeType;
import jakarta.inject.Inject;
import org.eclipse.microprofile.config.Config;
import org.eclipse.microprofile.config.ConfigProvider;

import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.function.IntUnaryOperator;
import java.util.logging.Logger;

/**
 * Deletes delivered outbox rows past {@code outbox.cleanup.delivered-retention}, inbox marks past their
 * {@code retain_until}, and inbox holds and settled side effects older than the inbox retention, in small batches
 * up to a per-run limit (R8.1, R5.6). Pending and parked rows, the inbox's high-water rows and side effects whose
 * outcome is unknown (STARTED) are never deleted. Every server runs it; concurrent runs just share the batches.
 */
@Singleton
@Startup
@TransactionAttribute(TransactionAttributeType.NOT_SUPPORTED)
public class Cleanup {

    private static final Logger LOG = Logger.getLogger(Cleanup.class.getName());

    @Resource
    TimerService timers;

    @Inject
    CleanupBatch batches;

    @Inject
    OutboxSettings outboxSettings;

    private CleanupSettings settings;

    @PostConstruct
    void start() {
        Config config = ConfigProvider.getConfig();
        settings = CleanupSettings.read(name -> config.getOptionalValue(name, String.class));
        if (outboxSettings.inboxRetention().compareTo(settings.minimumInboxRetention()) < 0) {
            PublisherMessages.INBOX_RETENTION_SHORT.log(LOG,
                    () -> "outbox.inbox.retention-days (" + outboxSettings.inboxRetention().toDays()
                    + " days) is shorter than outbox.inbox.redelivery-window plus outbox.inbox.recovery-window ("
                    + settings.minimumInboxRetention() + "): a late redelivery or a restored backup can make a "
                    + "consumer apply an event twice (R5.6, R9.5)");
        }
        if (!settings.enabled()) {
            PublisherMessages.CLEANUP_DISABLED.log(LOG, () -> "outbox cleanup disabled (outbox.cleanup.enabled=false)");
            return;
        }
        long interval = settings.interval().toMillis();
        timers.createIntervalTimer(interval, interval, new TimerConfig("outbox-cleanup", false));
    }

    @Timeout
    void onTimer() {
        try {
            OffsetDateTime now = OffsetDateTime.now(ZoneOffset.UTC);
            OffsetDateTime deliveredBefore = now.minus(settings.deliveredRetention());
            int outbox = run(limit -> batches.deleteDelivered(deliveredBefore, limit));
            int inbox = run(limit -> batches.deleteExpiredInboxMarks(now, limit));
            // A hold whose message never came back (the broker gave it up) is evidence for as long as a mark.
            OffsetDateTime heldBefore = now.minus(outboxSettings.inboxRetention());
            int holds = run(limit -> batches.deleteExpiredHolds(heldBefore, limit));
            int effects = run(limit -> batches.deleteSettledSideEffects(heldBefore, limit));
            if (outbox + inbox + holds + effects > 0) {
                PublisherMessages.CLEANUP_DELETED.log(LOG,
                        () -> "outbox cleanup deleted " + outbox + " delivered rows (delivered before "
                        + deliveredBefore + "), " + inbox + " expired inbox marks, " + holds + " expired holds and "
                        + effects + " settled side effects; the inbox's high-water rows and side effects of unknown"
                        + " outcome are never deleted");
            }
        } catch (RuntimeException e) {
            PublisherMessages.CLEANUP_FAILED.log(LOG, e, () -> "outbox cleanup run failed; the next run retries");
        }
    }

    private int run(IntUnaryOperator batch) {
        int total = 0;
        for (int i = 0; i < settings.maxBatchesPerRun(); i++) {
            int deleted = batch.applyAsInt(settings.batchSize());
            total += deleted;
            if (deleted < settings.batchSize()) {
                break;
            }
        }
        return total;
    }
}
