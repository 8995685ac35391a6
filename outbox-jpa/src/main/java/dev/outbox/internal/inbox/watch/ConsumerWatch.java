package dev.outbox.internal.inbox.watch;

import dev.outbox.internal.config.Settings;
import dev.outbox.internal.logging.CoreMessages;
import jakarta.annotation.PostConstruct;
import jakarta.annotation.PreDestroy;
import jakarta.annotation.Resource;
import jakarta.enterprise.concurrent.ManagedThreadFactory;
import jakarta.enterprise.context.ApplicationScoped;
import org.eclipse.microprofile.config.Config;
import org.eclipse.microprofile.config.ConfigProvider;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import java.util.logging.Logger;

/**
 * What this instance knows of its inbox consumers, so one that stops reading is not invisible (R6.1): a stopped
 * consumer looks like a quiet one unless somebody compares it with what waits for it. The
 * consumers report each attempt they make on a record ({@link #progressed}); a watched consumer also has a
 * {@link ConsumerSource} that says what waits for it. One background thread reads every source each
 * {@link #REFRESH} and keeps the result, so the liveness check and the {@code outbox_inbox_waiting} gauge answer at
 * once from memory: a probe or a scrape never waits on a broker (a broker that hangs delays only this thread).
 *
 * <p>The stall window is {@code outbox.health.consumer-stall} (a very long one, {@code P3650D}, switches the verdict
 * off in effect; the readings and the gauge stay). It lives in a library jar for the same reason as the publisher's heartbeat: the health
 * checks, the metrics and the consumers sit in different modules of the EAR.
 */
@ApplicationScoped
public class ConsumerWatch {

    private static final Logger LOG = Logger.getLogger(ConsumerWatch.class.getName());
    static final Duration REFRESH = Duration.ofSeconds(2);
    static final Duration STALE = Duration.ofSeconds(30);

    @Resource(lookup = "java:comp/DefaultManagedThreadFactory")
    ManagedThreadFactory threads;

    private final Map<String, Watched> consumers = new ConcurrentHashMap<>();
    private final List<Consumer<String>> listeners = new CopyOnWriteArrayList<>();
    private Duration stallWindow;
    private Thread reader;
    private volatile boolean stopped;

    /** For CDI, which configures it in {@link #configure()}. */
    public ConsumerWatch() {
    }

    /** For tests: no reader thread (no managed thread factory); {@link #readAll()} reads. */
    ConsumerWatch(Duration stallWindow) {
        this.stallWindow = stallWindow;
    }

    @PostConstruct
    void configure() {
        Config config = ConfigProvider.getConfig();
        // A bad value stops the start with the variable's name (InvalidSettingException).
        stallWindow = Settings.INBOX_CONSUMER_STALL.duration(name -> config.getOptionalValue(name, String.class));
    }

    @PreDestroy
    synchronized void stop() {
        stopped = true;
        if (reader != null) {
            reader.interrupt();
        }
    }

    /**
     * From now on the consumer's state includes what waits for it at {@code source}. A consumer has one source: a
     * second call replaces the first (and says so in the log), so give each subscription its own consumer name.
     */
    public void watch(String consumer, ConsumerSource source) {
        Watched watched = consumers.computeIfAbsent(consumer, Watched::new);
        ConsumerSource before = watched.source;
        watched.source = source;
        if (before != null && !before.describe().equals(source.describe())) {
            CoreMessages.WATCH_REPLACED.log(LOG,
                    () -> "consumer " + consumer + " was watched on " + before.describe() + " and is now watched on "
                    + source.describe() + " only: give each subscription a consumer name of its own");
        }
        CoreMessages.WATCHED.log(LOG,
                () -> "consumer " + consumer + " is watched for stalls on " + source.describe() + " (window "
                + stallWindow + ")");
        startReader();
        listeners.forEach(listener -> tell(listener, consumer));
    }

    /**
     * Calls {@code listener} with every consumer watched now and each one watched later (the metrics add a gauge per
     * consumer: consumers start in other modules, before or after the metrics do). It may hear a consumer twice.
     */
    public void onWatched(Consumer<String> listener) {
        listeners.add(listener);
        watched().forEach(consumer -> tell(listener, consumer));
    }

    private static void tell(Consumer<String> listener, String consumer) {
        try {
            listener.accept(consumer);
        } catch (RuntimeException e) {
            // The metrics must never stop a consumer, or the metrics themselves, from starting.
            CoreMessages.WATCH_LISTENER_FAILED.log(LOG, e, () -> "a consumer watch listener failed for " + consumer);
        }
    }

    /**
     * The consumer made an attempt on a record: applied it, absorbed a duplicate, held it, parked it, or failed and
     * will retry. Cheap: called per attempt.
     */
    public void progressed(String consumer) {
        consumers.computeIfAbsent(consumer, Watched::new).progress.progressed(Instant.now());
    }

    /**
     * The consumer cannot finish its record because the database is away, and retries until it is back. Counted as
     * progress: a restart cannot bring the database back, and a liveness DOWN for it would restart every instance
     * at once while readiness already reports the outage.
     */
    public void waitingForDatabase(String consumer) {
        progressed(consumer);
    }

    /** The consumers that have a source, in name order. */
    public List<String> watched() {
        return consumers.values().stream().filter(w -> w.source != null).map(w -> w.consumer).sorted().toList();
    }

    /** Every watched consumer's last reading, in name order; never waits for a source. */
    public List<ConsumerState> states() {
        List<ConsumerState> states = new ArrayList<>();
        for (String consumer : watched()) {
            state(consumer).ifPresent(states::add);
        }
        return states;
    }

    /**
     * The consumer's last reading; empty before its source was first read. A reading older than {@link #STALE} (the
     * reader hangs on a source) is served as "cannot say": never a verdict on data that old.
     */
    public Optional<ConsumerState> state(String consumer) {
        Watched watched = consumers.get(consumer);
        if (watched == null || watched.last == null) {
            return Optional.empty();
        }
        ConsumerState last = watched.last;
        if (Duration.between(watched.readAt, Instant.now()).compareTo(STALE) > 0) {
            return Optional.of(new ConsumerState(last.consumer(), last.source(), java.util.OptionalLong.empty(),
                    last.sinceProgress(), false));
        }
        return Optional.of(last);
    }

    public Duration stallWindow() {
        return stallWindow;
    }

    /** Reads every source now, one after the other (the reader thread does this each {@link #REFRESH}). */
    void readAll() {
        for (Watched watched : consumers.values()) {
            if (watched.source != null) {
                try {
                    watched.read(stallWindow);
                } catch (RuntimeException | LinkageError e) {
                    // One broken source must not blind the others; its state goes stale and reads "cannot say".
                    CoreMessages.WATCH_READ_FAILED.log(LOG, e,
                            () -> "reading " + watched.consumer + "'s source failed");
                }
            }
        }
    }

    private synchronized void startReader() {
        if (reader != null || stopped || threads == null) {
            return;
        }
        reader = threads.newThread(() -> {
            while (!stopped && !Thread.currentThread().isInterrupted()) {
                readAll();
                try {
                    Thread.sleep(REFRESH.toMillis());
                } catch (InterruptedException e) {
                    return; // the application stops
                }
            }
        });
        reader.setName("outbox-consumer-watch");
        reader.setDaemon(true);
        reader.start();
    }

    private static final class Watched {
        final String consumer;
        final ConsumerProgress progress = new ConsumerProgress();
        volatile ConsumerSource source;
        volatile ConsumerState last;
        volatile Instant readAt;
        private boolean unreadable;

        Watched(String consumer) {
            this.consumer = consumer;
        }

        void read(Duration stallWindow) {
            ConsumerSource current = source;
            Optional<ConsumerSource.Reading> reading = current.read();
            ConsumerState state = progress.observe(consumer, current.describe(), reading, Instant.now(), stallWindow);
            // A watch that cannot read its source is blind: say so once, and once when it sees again.
            if (reading.isEmpty() && !unreadable) {
                CoreMessages.SOURCE_UNREADABLE.log(LOG,
                        () -> "consumer " + consumer + ": " + current.describe() + " cannot be read now; its stall "
                        + "window is paused until it can (outbox_inbox_waiting is NaN meanwhile)");
            } else if (reading.isPresent() && unreadable) {
                CoreMessages.SOURCE_READABLE_AGAIN.log(LOG,
                        () -> "consumer " + consumer + ": " + current.describe() + " is readable again");
            }
            unreadable = reading.isEmpty();
            if (state.stalled() && (last == null || !last.stalled())) {
                CoreMessages.CONSUMER_STALLED.log(LOG,
                        () -> "consumer " + consumer + " is stalled: " + state.waiting().getAsLong() + " waiting on "
                        + current.describe() + " and no attempt for " + stallWindow.toSeconds() + " s");
            }
            readAt = Instant.now();
            last = state;
        }
    }
}
