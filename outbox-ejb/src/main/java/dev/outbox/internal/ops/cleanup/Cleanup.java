package dev.outbox.internal.ops.cleanup;

import dev.outbox.internal.config.OutboxSettings;
import dev.outbox.internal.protocol.Retention;
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
            Retention retention = new Retention(settings.deliveredRetention(), outboxSettings.inboxRetention(),
                    settings.batchSize(), settings.maxBatchesPerRun());
            Retention.Deleted deleted = retention.run(now, batches::delete);
            if (deleted.total() > 0) {
                PublisherMessages.CLEANUP_DELETED.log(LOG,
                        () -> "outbox cleanup deleted " + deleted.deliveredEvents() + " delivered rows (delivered before "
                        + retention.deliveredBefore(now) + "), " + deleted.inboxMarks()
                        + " expired inbox marks, " + deleted.holds() + " expired holds and " + deleted.sideEffects()
                        + " settled side effects; the inbox's high-water rows and side effects of unknown"
                        + " outcome are never deleted");
            }
        } catch (RuntimeException e) {
            PublisherMessages.CLEANUP_FAILED.log(LOG, e, () -> "outbox cleanup run failed; the next run retries");
        }
    }
}
