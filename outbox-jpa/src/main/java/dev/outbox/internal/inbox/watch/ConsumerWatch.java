package dev.outbox.internal.inbox.watch;

import dev.outbox.internal.config.Settings;
import jakarta.annotation.PostConstruct;
import jakarta.enterprise.context.ApplicationScoped;
import org.eclipse.microprofile.config.Config;
import org.eclipse.microprofile.config.ConfigProvider;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import java.util.logging.Logger;

/**
 * What this instance knows of its inbox consumers, so one that stops reading is not invisible (issue 19 item 3,
 * R6.1): a stopped consumer looks like a quiet one unless somebody compares it with what waits for it. The
 * consumers' loops report each record they finish ({@link #progressed}); a consumer with a {@link ConsumerSource}
 * also reports what waits for it. The liveness check and the {@code outbox_inbox_waiting} gauge read
 * {@link #states()}; a source is asked at most every {@link #REFRESH}, however often they read.
 *
 * <p>The stall window is {@code outbox.health.consumer-stall}. It lives in a library jar for the same reason as
 * the publisher's heartbeat: the health checks, the metrics and the consumers sit in different modules of the EAR.
 */
@ApplicationScoped
public class ConsumerWatch {

    private static final Logger LOG = Logger.getLogger(ConsumerWatch.class.getName());
    static final Duration REFRESH = Duration.ofSeconds(2);

    private final Map<String, Watched> consumers = new ConcurrentHashMap<>();
    private final List<Consumer<String>> listeners = new CopyOnWriteArrayList<>();
    private Duration stallWindow;

    @PostConstruct
    void configure() {
        Config config = ConfigProvider.getConfig();
        // A bad value stops the start with the variable's name (InvalidSettingException).
        stallWindow = Settings.INBOX_CONSUMER_STALL.duration(name -> config.getOptionalValue(name, String.class));
    }

    /** From now on the consumer's state includes what waits for it at {@code source}. */
    public void watch(String consumer, ConsumerSource source) {
        consumers.computeIfAbsent(consumer, Watched::new).source = source;
        LOG.info(() -> "consumer " + consumer + " is watched for stalls on " + source.describe() + " (window "
                + stallWindow + ")");
        listeners.forEach(listener -> listener.accept(consumer));
    }

    /**
     * Calls {@code listener} with every consumer watched now and each one watched later (the metrics add a gauge per
     * consumer: consumers start in other modules, before or after the metrics do). It may hear a consumer twice.
     */
    public void onWatched(Consumer<String> listener) {
        listeners.add(listener);
        watched().forEach(listener);
    }

    /** The consumer finished a record (applied, absorbed as a duplicate, or parked). Cheap: called per record. */
    public void progressed(String consumer) {
        consumers.computeIfAbsent(consumer, Watched::new).progress.progressed(Instant.now());
    }

    /** The consumers that have a source, in name order. */
    public List<String> watched() {
        return consumers.values().stream().filter(w -> w.source != null).map(w -> w.consumer).sorted().toList();
    }

    /** Every watched consumer's state now, in name order. Asks each source at most every {@link #REFRESH}. */
    public List<ConsumerState> states() {
        List<ConsumerState> states = new ArrayList<>();
        for (String consumer : watched()) {
            state(consumer).ifPresent(states::add);
        }
        return states;
    }

    public Optional<ConsumerState> state(String consumer) {
        Watched watched = consumers.get(consumer);
        if (watched == null || watched.source == null) {
            return Optional.empty();
        }
        return Optional.of(watched.observe(stallWindow));
    }

    public Duration stallWindow() {
        return stallWindow;
    }

    private static final class Watched {
        final String consumer;
        final ConsumerProgress progress = new ConsumerProgress();
        volatile ConsumerSource source;
        private Instant readAt;
        private ConsumerState last;

        Watched(String consumer) {
            this.consumer = consumer;
        }

        synchronized ConsumerState observe(Duration stallWindow) {
            Instant now = Instant.now();
            if (last == null || Duration.between(readAt, now).compareTo(REFRESH) >= 0) {
                OptionalLong waiting = source.waiting();
                readAt = Instant.now();
                last = progress.observe(consumer, source.describe(), waiting, readAt, stallWindow);
            }
            return last;
        }
    }
}
