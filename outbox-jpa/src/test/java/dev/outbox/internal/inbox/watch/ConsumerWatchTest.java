package dev.outbox.internal.inbox.watch;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The watch's bookkeeping around the stall rule: readings kept in memory, listeners, replaced sources. */
class ConsumerWatchTest {

    private final ConsumerWatch watch = new ConsumerWatch(Duration.ofMinutes(2));

    @Test
    void statesAnswerFromTheLastReadingWithoutAskingTheSource() {
        AtomicInteger reads = new AtomicInteger();
        watch.watch("invoicing", source("topic t as group g", () -> {
            reads.incrementAndGet();
            return Optional.of(ConsumerSource.Reading.waitingOnly(7));
        }));
        assertEquals(List.of(), watch.states(), "nothing read yet: no state, rather than a made-up one");
        watch.readAll();
        for (int i = 0; i < 10; i++) {
            assertEquals(7, watch.states().get(0).waiting().getAsLong());
        }
        assertEquals(1, reads.get(), "a probe or a scrape never waits on a broker");
    }

    @Test
    void aListenerThatFailsNeitherStopsTheWatchNorTheOtherListeners() {
        List<String> heard = new ArrayList<>();
        watch.onWatched(consumer -> {
            throw new IllegalStateException("a metrics registry that refuses");
        });
        watch.onWatched(heard::add);
        watch.watch("shipping", source("queue q", () -> Optional.of(ConsumerSource.Reading.waitingOnly(0))));
        assertEquals(List.of("shipping"), heard);
        assertEquals(List.of("shipping"), watch.watched());
    }

    @Test
    void aSourceThatThrowsDoesNotBlindTheOthers() {
        watch.watch("broken", source("a third-party source", () -> {
            throw new IllegalStateException("bug");
        }));
        watch.watch("shipping", source("queue q", () -> Optional.of(ConsumerSource.Reading.waitingOnly(3))));
        watch.readAll();
        assertEquals(3, watch.state("shipping").orElseThrow().waiting().getAsLong());
        assertTrue(watch.state("broken").isEmpty(), "never read: no state");
    }

    @Test
    void aListenerHearsTheConsumersWatchedBeforeIt() {
        watch.watch("loyalty", source("topic t as group loyalty", Optional::empty));
        List<String> heard = new ArrayList<>();
        watch.onWatched(heard::add);
        assertEquals(List.of("loyalty"), heard);
    }

    @Test
    void aSourceThatCannotBeReadShowsAsUnknownAndNeverStalled() {
        watch.watch("loyalty", source("topic t as group loyalty", Optional::empty));
        watch.readAll();
        ConsumerState state = watch.state("loyalty").orElseThrow();
        assertTrue(state.waiting().isEmpty(), state.toString());
        assertTrue(!state.stalled(), state.toString());
    }

    private static ConsumerSource source(String name, java.util.function.Supplier<Optional<ConsumerSource.Reading>> read) {
        return new ConsumerSource() {
            @Override
            public Optional<Reading> read() {
                return read.get();
            }

            @Override
            public String describe() {
                return name;
            }
        };
    }
}
