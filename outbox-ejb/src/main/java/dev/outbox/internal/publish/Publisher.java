package dev.outbox.internal.publish;

import dev.outbox.OutboxEvent;
import dev.outbox.internal.config.Settings;
import dev.outbox.internal.health.PublisherHeartbeat;
import dev.outbox.internal.persistence.ClaimRequest;
import dev.outbox.internal.protocol.Outcome;
import dev.outbox.internal.record.OutboxCommitted;
import dev.outbox.internal.trace.Tracing;
import dev.outbox.internal.transport.CloudEventAttributes;
import dev.outbox.spi.OutboundEvent;
import dev.outbox.spi.SendDeadline;
import dev.outbox.spi.SendResult;
import dev.outbox.spi.Transport;
import jakarta.annotation.PostConstruct;
import jakarta.annotation.PreDestroy;
import jakarta.annotation.Resource;
import jakarta.ejb.ConcurrencyManagement;
import jakarta.ejb.ConcurrencyManagementType;
import jakarta.ejb.Singleton;
import jakarta.ejb.Startup;
import jakarta.ejb.Timeout;
import jakarta.ejb.Timer;
import jakarta.ejb.TimerConfig;
import jakarta.ejb.TimerService;
import jakarta.ejb.TransactionAttribute;
import jakarta.ejb.TransactionAttributeType;
import jakarta.enterprise.concurrent.ManagedExecutorService;
import jakarta.enterprise.event.Event;
import jakarta.enterprise.inject.Any;
import jakarta.enterprise.inject.Instance;
import jakarta.inject.Inject;
import org.eclipse.microprofile.config.Config;
import org.eclipse.microprofile.config.ConfigProvider;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.logging.Logger;

/**
 * The leased publisher, one per server instance. Each run claims a batch in a short transaction, sends it with
 * no transaction and no lock held, and confirms in another short transaction (R4.1, R4.2); it repeats while
 * full batches come back. Instances coordinate only through the table (leases, SKIP LOCKED): no leader.
 *
 * <p>Runs start from an EJB timer every {@code outbox.publisher.interval-ms} and from the after-commit wake-up
 * ({@link OutboxCommitted}); at most one run is active per instance. A run has up to {@code outbox.publisher.workers}
 * batches between claim and confirm at once (default 1), which bounds the connections the publisher takes from the
 * business pool.
 */
@Singleton
@Startup
@ConcurrencyManagement(ConcurrencyManagementType.BEAN)
@TransactionAttribute(TransactionAttributeType.NOT_SUPPORTED)
public class Publisher {

    private static final Logger LOG = Logger.getLogger(Publisher.class.getName());

    @Resource
    TimerService timers;

    @Resource
    ManagedExecutorService executor;

    @Inject
    ClaimStep claims;

    @Inject
    Tracing tracing;

    @Inject
    ConfirmStep confirms;

    /** Observed by the metrics where the server has a metrics API (R6.1); nothing here depends on one. */
    @Inject
    Event<BatchSent> batchSent;

    @Inject
    WakeUp wakeUps;

    /** Liveness (R6.4): the check reads when this publisher's last run ended. */
    @Inject
    PublisherHeartbeat heartbeat;

    @Inject
    @Any
    Instance<Transport> transports;

    private PublisherSettings settings;
    private Routes routes;
    private final AtomicBoolean running = new AtomicBoolean();
    private final AtomicBoolean wanted = new AtomicBoolean();
    private volatile boolean stopped;
    /**
     * The batches in flight the next run starts with: one more than a run cut at its batch limit kept (it goes on
     * with the same backlog), else {@code outbox.publisher.workers}. Runs never overlap ({@code running}).
     */
    private volatile int depth = Integer.MAX_VALUE;

    @PostConstruct
    void start() {
        Config config = ConfigProvider.getConfig();
        settings = PublisherSettings.read(name -> config.getOptionalValue(name, String.class));
        Failpoint.arm(Settings.FAILPOINT.text(name -> config.getOptionalValue(name, String.class)));
        if (Failpoint.armed() != null) {
            PublisherMessages.FAILPOINT_ARMED.log(LOG,
                    () -> "outbox failpoint " + Failpoint.armed() + " is armed: this JVM halts there (tests only)");
        }
        if (!settings.enabled()) {
            PublisherMessages.PUBLISHER_DISABLED.log(LOG,
                    () -> "outbox publisher disabled (outbox.publisher.enabled=false): events stay pending");
            return;
        }
        routes = Routes.read(name -> config.getOptionalValue(name, String.class), config.getPropertyNames(),
                transports.stream().toList());
        routes.refuseSendsLongerThan(settings.lease());
        CloudEventAttributes.check(name -> config.getOptionalValue(name, String.class), config.getPropertyNames());
        long interval = settings.interval().toMillis();
        wakeUps.attach(this::wakeUp);
        timers.createIntervalTimer(interval, interval, new TimerConfig("outbox-publisher", false));
        heartbeat.started(settings.interval());
        PublisherMessages.PUBLISHER_STARTED.log(LOG,
                () -> "outbox publisher " + settings.claimerId() + " started: transport " + routes.describe()
                + ", every " + interval + " ms, batches of " + settings.batchSize() + ", " + settings.workers()
                + " worker(s), lease "
                + settings.lease().toMillis() + " ms, ordering " + (settings.strictByDefault() ? "strict" : "independent")
                + " by default, except " + settings.orderingExceptions());
    }

    @PreDestroy
    void stop() {
        stopped = true;
        wakeUps.detach();
        heartbeat.stopped();
    }

    @Timeout
    void onTimer(Timer timer) {
        runIfIdle();
    }

    /**
     * The after-commit wake-up ({@link WakeUp}): a hint that new rows are due; the run itself happens on a managed
     * thread. Runs on the committing thread, so it only flips a flag and maybe hands over.
     */
    private void wakeUp() {
        if (routes == null || stopped) {
            return;
        }
        wanted.set(true);
        if (!running.get()) {
            try {
                executor.execute(this::runIfIdle);
            } catch (RejectedExecutionException e) {
                LOG.fine("wake-up rejected; the next timer tick delivers");
            }
        }
    }

    /** Runs the publisher unless a run is active; a request that arrives meanwhile makes that run go again. */
    public void runIfIdle() {
        if (routes == null || stopped) {
            return;
        }
        wanted.set(true);
        // an interrupted thread (the server stopping it) starts no further run
        while (wanted.get() && !Thread.currentThread().isInterrupted() && running.compareAndSet(false, true)) {
            try {
                wanted.set(false);
                drain();
            } catch (RuntimeException e) {
                // The table is the truth: unconfirmed rows stay claimed until their lease runs out.
                PublisherMessages.RUN_FAILED.log(LOG, e,
                        () -> "outbox publisher run failed; leases expire and the rows are retried");
            } finally {
                heartbeat.runEnded();
                running.set(false);
            }
        }
    }

    /** Where an event would be sent now, one entry per transport of its route (a replay's dry run shows it). */
    public List<String> destinationsOf(OutboxEvent event) {
        Routes current = routes;
        if (current == null) {
            return List.of("none on this server (outbox.publisher.enabled=false)");
        }
        return current.of(event.eventType()).stream().map(t -> t.destinationOf(event)).toList();
    }

    /** R6.7: one span per batch send, linked to the spans that recorded its events. */
    private List<Routes.Routed> traced(List<OutboundEvent> batch, SendDeadline deadline) {
        try (Tracing.Step span = tracing.sending(batch)) {
            List<Routes.Routed> results = routes.send(batch, deadline);
            long delivered = results.stream().map(Routes.Routed::result).filter(SendResult.Delivered.class::isInstance)
                    .count();
            span.outcome("delivered " + delivered + " of " + batch.size());
            return results;
        }
    }

    /**
     * Sends the batch, except its shadow events (R8.3): the application's old path sends those, so each gets a
     * report of what would have been sent and counts as delivered by that path. Results in the batch's order.
     */
    private List<Routes.Routed> sendOrShadow(List<OutboundEvent> claimed, SendDeadline deadline) {
        List<OutboundEvent> real = claimed.stream().filter(e -> !e.shadow()).toList();
        if (real.size() == claimed.size()) {
            return traced(claimed, deadline);
        }
        Iterator<Routes.Routed> sent = (real.isEmpty() ? List.<Routes.Routed>of() : traced(real, deadline))
                .iterator();
        List<Routes.Routed> results = new ArrayList<>(claimed.size());
        for (OutboundEvent event : claimed) {
            if (event.shadow()) {
                List<String> destinations = destinationsOf(event.event());
                PublisherMessages.SHADOW_SEND.log(LOG,
                        () -> "shadow: would send " + event.describe() + " to " + destinations
                        + "; the old path sends it (outbox.publisher.mode)");
                results.add(new Routes.Routed(new SendResult.Delivered("shadow:" + String.join("+", destinations),
                        null, null), java.util.Set.of()));
            } else {
                results.add(sent.next()); // Routes.send answers every event it was given, in order
            }
        }
        return results;
    }

    /** R4.2: the claim has committed; nothing is locked while the broker works. Then the conditional confirm. */
    private void publish(List<OutboundEvent> claimed, SendDeadline deadline, RunProfile profile) {
        Failpoint.AFTER_CLAIM_BEFORE_SEND.reach();
        List<Routes.Routed> results = profile.send(() -> sendOrShadow(claimed, deadline));
        Failpoint.AFTER_SEND_BEFORE_CONFIRM.reach();
        List<Outcome> outcomes = new ArrayList<>(claimed.size());
        Map<BatchSent.Sent, Long> sent = new HashMap<>();
        for (int i = 0; i < claimed.size(); i++) {
            OutboundEvent event = claimed.get(i);
            outcomes.add(new Outcome(event, results.get(i).result(), results.get(i).acceptedBy()));
            String eventType = event.event().eventType();
            sent.merge(BatchSent.Sent.of(eventType, event.shadow() ? "shadow" : routes.namesOf(eventType),
                    results.get(i).result()), 1L, Long::sum);
        }
        batchSent.fire(new BatchSent(sent));
        profile.confirm(() -> confirms.record(settings.claimerId(), outcomes, settings));
        Failpoint.AFTER_CONFIRM.reach();
    }

    /** A claimed batch and the send deadline started before its claim. */
    private record Claimed(List<OutboundEvent> events, SendDeadline deadline) {
    }

    /** One run ({@link RunLoop}): up to {@code outbox.publisher.workers} batches between claim and confirm. */
    private void drain() {
        RunProfile profile = new RunProfile();
        RunLoop<Claimed> run = new RunLoop<>(settings.workers(), settings.batchSize(), settings.maxBatchesPerRun(),
                executor, () -> stopped, claimed -> claimed.events().size(),
                e -> PublisherMessages.BATCH_FAILED.log(LOG, e,
                        () -> "outbox publisher batch failed after its claim; its leases expire and the rows are"
                        + " retried"));
        int startDepth = depth;
        depth = settings.workers(); // what a failed run leaves: the next starts afresh
        try {
            RunLoop.Ended ended = run.run(startDepth, () -> {
                // R4.3: started before the claim, so it passes before the lease the database grants.
                SendDeadline deadline = SendDeadline.forLease(settings.lease());
                return new Claimed(profile.claim(() -> claims.claim(new ClaimRequest(settings.claimerId(),
                        settings.batchSize(), settings.lease(), settings.strictByDefault(),
                        settings.orderingExceptions()))), deadline);
            }, claimed -> publish(claimed.events(), claimed.deadline(), profile));
            depth = ended.atBatchLimit() ? ended.depth() + 1 : settings.workers();
        } finally {
            if (profile.events() > 0) {
                LOG.fine(profile::describe);
            }
        }
    }
}
