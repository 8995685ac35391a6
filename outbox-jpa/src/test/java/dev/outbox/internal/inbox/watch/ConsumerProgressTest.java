package dev.outbox.internal.inbox.watch;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.OptionalLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The stall rule of issue 19 item 3, on a hand-moved clock. */
class ConsumerProgressTest {

    private static final Duration WINDOW = Duration.ofMinutes(2);
    private static final Instant T0 = Instant.parse("2026-12-04T10:00:00Z");

    private final ConsumerProgress progress = new ConsumerProgress();

    private ConsumerState at(long seconds, OptionalLong waiting) {
        return progress.observe("loyalty", "topic outbox.Order, group loyalty", waiting, T0.plusSeconds(seconds), WINDOW);
    }

    @Test
    void aConsumerWithRecordsWaitingAndNoProgressForTheWholeWindowIsStalled() {
        assertFalse(at(0, OptionalLong.of(3)).stalled(), "the first observation only starts the window");
        assertFalse(at(119, OptionalLong.of(5)).stalled(), "inside the window");
        ConsumerState state = at(120, OptionalLong.of(5));
        assertTrue(state.stalled(), "records waited the whole window and nothing was finished: " + state);
        assertNull(state.sinceProgress(), "it never finished a record since start");
    }

    @Test
    void aConsumerThatFinishesRecordsIsNeverStalledHoweverLongItsLagStays() {
        for (long s = 0; s <= 600; s += 30) {
            progress.progressed(T0.plusSeconds(s));
            assertFalse(at(s + 29, OptionalLong.of(10_000)).stalled(), "a busy consumer behind by 10,000 at " + s + " s");
        }
    }

    @Test
    void anIdleConsumerIsNotStalledTheMomentARecordArrives() {
        progress.progressed(T0);
        assertFalse(at(3_600, OptionalLong.of(0)).stalled(), "idle for an hour with nothing waiting");
        assertFalse(at(3_601, OptionalLong.of(1)).stalled(), "a record arrived a second ago");
        assertEquals(Duration.ofSeconds(3_602), at(3_602, OptionalLong.of(1)).sinceProgress());
    }

    @Test
    void aSourceThatCannotBeReadNeverMakesAStallAndRestartsTheWindow() {
        at(0, OptionalLong.of(5));
        assertFalse(at(200, OptionalLong.empty()).stalled(), "the broker is away: not the consumer's fault");
        assertFalse(at(201, OptionalLong.of(5)).stalled(), "after the outage the consumer gets a whole window");
        assertFalse(at(320, OptionalLong.of(5)).stalled());
        assertTrue(at(321, OptionalLong.of(5)).stalled(), "a whole window after the broker came back, still nothing");
    }

    @Test
    void progressEndsAStall() {
        at(0, OptionalLong.of(5));
        assertTrue(at(130, OptionalLong.of(5)).stalled());
        progress.progressed(T0.plusSeconds(131));
        assertFalse(at(132, OptionalLong.of(4)).stalled(), "it finished a record: a new window starts");
    }
}
