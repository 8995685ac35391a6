package dev.outbox.internal.inbox.watch;

import dev.outbox.internal.inbox.watch.ConsumerSource.Reading;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
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
        Optional<Reading> reading = waiting.isPresent() ? Optional.of(Reading.waitingOnly(waiting.getAsLong()))
                : Optional.empty();
        return progress.observe("loyalty", "topic outbox.Order, group loyalty", reading, T0.plusSeconds(seconds), WINDOW);
    }

    private ConsumerState at(long seconds, long waiting, long finishedByTheGroup) {
        return progress.observe("loyalty", "topic outbox.Order, group loyalty",
                Optional.of(new Reading(waiting, finishedByTheGroup)), T0.plusSeconds(seconds), WINDOW);
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
    void whileTheSourceCannotBeReadTheWindowIsPausedNeitherRunOutNorRestarted() {
        at(0, OptionalLong.of(5));
        assertFalse(at(100, OptionalLong.empty()).stalled(), "the broker is away: not the consumer's fault");
        assertFalse(at(400, OptionalLong.empty()).stalled(), "still away, far past the window");
        assertFalse(at(401, OptionalLong.of(5)).stalled(), "back: 100 s of the window were used before the outage");
        assertFalse(at(420, OptionalLong.of(5)).stalled(), "119 s of waiting seen");
        assertTrue(at(421, OptionalLong.of(5)).stalled(), "120 s of waiting seen, outage left out");
    }

    @Test
    void aReadFailureNowAndThenDoesNotHideADeadConsumer() {
        at(0, OptionalLong.of(5));
        // Readings every 2 s; one in fifteen times out (the admin client's 3 s), each pausing the window until the next.
        for (long s = 2; s <= 126; s += 2) {
            at(s, s % 30 == 0 ? OptionalLong.empty() : OptionalLong.of(5));
        }
        assertTrue(at(128, OptionalLong.of(5)).stalled(), "8 s paused in all: the window ran out all the same");
    }

    @Test
    void anInstanceWhoseGroupFinishesRecordsElsewhereIsNotStalled() {
        // Another instance of the group holds every partition and works through a backlog: this one finishes nothing.
        for (long s = 0; s <= 600; s += 30) {
            assertFalse(at(s, 5_000 - s, 1_000 + s).stalled(), "the group committed further at " + s + " s");
        }
        assertFalse(at(700, 4_400, 1_600).stalled(), "the group stopped: a new window starts");
        assertTrue(at(820, 4_400, 1_600).stalled(), "a whole window without the group's offsets moving");
    }

    @Test
    void anUnreadableSourceDoesNotClearAStallTheWindowAlreadyEarned() {
        at(0, OptionalLong.of(5));
        assertTrue(at(120, OptionalLong.of(5)).stalled());
        assertTrue(at(122, OptionalLong.empty()).stalled(), "one failed read must not make liveness flicker UP");
        assertTrue(at(124, OptionalLong.of(5)).stalled());
    }

    @Test
    void progressEndsAStall() {
        at(0, OptionalLong.of(5));
        assertTrue(at(130, OptionalLong.of(5)).stalled());
        progress.progressed(T0.plusSeconds(131));
        assertFalse(at(132, OptionalLong.of(4)).stalled(), "it finished a record: a new window starts");
    }
}
