package dev.outbox.internal.ops.metrics;

import dev.outbox.internal.config.Settings;
import dev.outbox.internal.persistence.Backlog;
import dev.outbox.internal.persistence.RowCounts;
import dev.outbox.internal.publish.PublisherMessages;
import jakarta.annotation.PostConstruct;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import org.eclipse.microprofile.config.Config;
import org.eclipse.microprofile.config.ConfigProvider;

import java.time.Duration;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.logging.Logger;

/**
 * The backlog the gauges show, read from the table at most once per {@code outbox.metrics.refresh-ms} however
 * often it is scraped: a scrape never costs more than two grouped queries over pending and parked rows.
 */
@ApplicationScoped
class BacklogCache {

    private static final Logger LOG = Logger.getLogger(BacklogCache.class.getName());

    @Inject
    RowCounts rows;

    private volatile Backlog backlog = Backlog.EMPTY;
    private volatile Duration refresh = Duration.ofSeconds(5);

    @PostConstruct
    void configure() {
        Config config = ConfigProvider.getConfig();
        refresh = Settings.METRICS_REFRESH.millis(name -> config.getOptionalValue(name, String.class));
    }

    /** The backlog, read again when older than the refresh interval. */
    Backlog backlog() {
        Backlog known = backlog;
        OffsetDateTime now = OffsetDateTime.now(ZoneOffset.UTC);
        return known.readAt().plus(refresh).isAfter(now) ? known : read(now);
    }

    private synchronized Backlog read(OffsetDateTime now) {
        if (backlog.readAt().plus(refresh).isAfter(now)) {
            return backlog; // another scrape thread read it meanwhile
        }
        try {
            backlog = rows.backlog(now);
        } catch (RuntimeException e) {
            PublisherMessages.BACKLOG_UNREADABLE.log(LOG, e,
                    () -> "outbox metrics: cannot read the backlog; the gauges keep their last values");
        }
        return backlog;
    }
}
