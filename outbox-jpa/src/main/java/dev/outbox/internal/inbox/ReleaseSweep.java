package dev.outbox.internal.inbox;

import dev.outbox.internal.logging.CoreMessages;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.concurrent.ManagedScheduledExecutorService;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.event.Startup;

import javax.naming.InitialContext;
import javax.naming.NamingException;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.logging.Logger;

/**
 * R5.7: the waiting events whose turn came with no delivery to bring them (an operator skipped the missing version, a
 * successor's failure was recorded, a long release was capped) go on while a consumer receives nothing. A consumer
 * whose own thread sweeps between deliveries (KafkaInbox's quiet polls) needs none of this; an MDB and a Reactive
 * Messaging method run only when a message comes, so each registers what sweeps for it (at its first message after
 * start), and this runs it every {@link InboxAttempt#RELEASE_SWEEP_NANOS} on the platform's managed scheduler,
 * scheduled at the application's start. What a sweep does is rate-limited per
 * consumer in {@link InboxAttempt}: a consumer busy with deliveries sweeps by itself, and this costs nothing more.
 */
@ApplicationScoped
public class ReleaseSweep {

    private static final Logger LOG = Logger.getLogger(ReleaseSweep.class.getName());

    /**
     * The platform's default scheduler: {@code java:comp} on any Jakarta EE server, WildFly's global name where no
     * component's names are bound (a Reactive Messaging method runs on SmallRye's own threads).
     */
    private static final List<String> SCHEDULERS = List.of("java:comp/DefaultManagedScheduledExecutorService",
            "java:jboss/ee/concurrency/scheduler/default");

    private final Map<String, Runnable> sweeps = new ConcurrentHashMap<>();
    private volatile ScheduledFuture<?> task;
    private volatile boolean unscheduledReported;

    /** Scheduled at the application's start, on a thread where the application's names resolve. */
    void onStart(@Observes Startup startup) {
        start();
    }

    /**
     * Runs {@code sweep} for {@code consumer} from now on, unless one runs for it already (the first one stays).
     * Called with each delivery: a task that could not be scheduled before is scheduled now.
     */
    public void keep(String consumer, Runnable sweep) {
        sweeps.putIfAbsent(consumer, sweep);
        ScheduledFuture<?> running = task;
        if (running == null || running.isDone()) {
            start();
        }
    }

    private synchronized void start() {
        if (task != null && !task.isDone()) {
            return;
        }
        try {
            long every = InboxAttempt.RELEASE_SWEEP_NANOS;
            task = scheduler().scheduleWithFixedDelay(this::sweepAll, every, every, TimeUnit.NANOSECONDS);
        } catch (NamingException | RuntimeException cannot) {
            // Never fails a delivery: without the sweep a consumer releases with its next message (R5.7).
            if (!unscheduledReported) {
                unscheduledReported = true;
                CoreMessages.NO_SCHEDULER.log(LOG,
                        () -> "no managed scheduler at " + SCHEDULERS + " (" + cannot.getClass().getName()
                        + "): MDB and Reactive Messaging consumers apply the waiting events a skip or a failure let go"
                        + " on with their next message only");
            }
        }
    }

    private static ManagedScheduledExecutorService scheduler() throws NamingException {
        NamingException notFound = null;
        for (String name : SCHEDULERS) {
            try {
                return (ManagedScheduledExecutorService) new InitialContext().lookup(name);
            } catch (NamingException e) {
                notFound = e;
            }
        }
        throw notFound;
    }

    private void sweepAll() {
        sweeps.forEach((consumer, sweep) -> {
            try {
                sweep.run();
            } catch (Throwable notNow) {
                // A scheduled task that threw would never run again, for any consumer: whatever one sweep threw
                // (an Error from a change included) is logged, and the next round tries again.
                CoreMessages.SWEEP_FAILED.log(LOG,
                        () -> "consumer " + consumer + ": the sweep for waiting events failed ("
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
