package dev.outbox.internal.inbox;

import jakarta.annotation.PreDestroy;
import jakarta.annotation.Resource;
import jakarta.enterprise.concurrent.ManagedScheduledExecutorService;
import jakarta.enterprise.context.ApplicationScoped;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.logging.Logger;

/**
 * R5.7: the waiting events whose turn came with no delivery to bring them (an operator skipped the missing version, a
 * successor's failure was recorded, a long release was capped) go on while a consumer receives nothing. A consumer
 * whose own thread sweeps between deliveries (KafkaInbox's quiet polls) needs none of this; an MDB and a Reactive
 * Messaging method run only when a message comes, so each registers what sweeps for it, and this runs it every
 * {@link InboxAttempt#RELEASE_SWEEP_NANOS} on the platform's managed scheduler. What a sweep does is rate-limited per
 * consumer in {@link InboxAttempt}: a consumer busy with deliveries sweeps by itself, and this costs nothing more.
 */
@ApplicationScoped
public class ReleaseSweep {

    private static final Logger LOG = Logger.getLogger(ReleaseSweep.class.getName());

    @Resource(lookup = "java:comp/DefaultManagedScheduledExecutorService")
    ManagedScheduledExecutorService scheduler;

    private final Map<String, Runnable> sweeps = new ConcurrentHashMap<>();
    private ScheduledFuture<?> task;

    /** Runs {@code sweep} for {@code consumer} from now on, unless one runs for it already (the first one stays). */
    public void keep(String consumer, Runnable sweep) {
        if (sweeps.putIfAbsent(consumer, sweep) == null) {
            start();
        }
    }

    private synchronized void start() {
        if (task == null) {
            long every = InboxAttempt.RELEASE_SWEEP_NANOS;
            task = scheduler.scheduleWithFixedDelay(this::sweepAll, every, every, TimeUnit.NANOSECONDS);
        }
    }

    private void sweepAll() {
        sweeps.forEach((consumer, sweep) -> {
            try {
                sweep.run();
            } catch (RuntimeException notNow) {
                // The next round tries again; a scheduled task that threw would never run again.
                LOG.warning(() -> "consumer " + consumer + ": the sweep for waiting events failed ("
                        + notNow.getClass().getName() + "); it runs again in "
                        + TimeUnit.NANOSECONDS.toSeconds(InboxAttempt.RELEASE_SWEEP_NANOS) + " s");
            }
        });
    }

    @PreDestroy
    synchronized void stop() {
        if (task != null) {
            task.cancel(false);
        }
    }
}
