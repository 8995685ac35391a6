package dev.outbox.kafka;

import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.MockConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.consumer.OffsetCommitCallback;
import org.apache.kafka.clients.consumer.OffsetResetStrategy;
import org.apache.kafka.clients.consumer.RetriableCommitFailedException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

/**
 * R5.5 for {@link KafkaInbox}'s offsets: committed only past records it was told are done, a refused commit sent
 * again even when no record follows, a quiet consumer's offsets brought up to its position whatever became of its
 * commits, never again for a partition that went to another member. Kafka's MockConsumer
 * records what is committed; the commits themselves meet a real broker in KafkaIT and KafkaClusterIT.
 */
class PollOffsetsTest {

    private static final TopicPartition P0 = new TopicPartition("orders", 0);
    private static final TopicPartition P1 = new TopicPartition("orders", 1);

    private final Broker kafka = new Broker();
    private long now = 1_000_000_000L;
    private final PollOffsets offsets = new PollOffsets("invoicing", kafka, () -> now);

    PollOffsetsTest() {
        kafka.assign(List.of(P0, P1)); // MockConsumer reports a committed offset only for assigned partitions
        kafka.updateBeginningOffsets(Map.of(P0, 0L, P1, 0L));
    }

    @Test
    void aPollsCommitMovesEachPartitionJustPastItsLastDoneRecord() {
        offsets.done(record(P0, 5));
        offsets.done(record(P0, 6));
        offsets.done(record(P1, 2));

        offsets.commitDone();

        assertEquals(Map.of(P0, new OffsetAndMetadata(7), P1, new OffsetAndMetadata(3)), committed(),
                "the next record to read is the one after the last done record, per partition");
    }

    @Test
    void nothingIsCommittedForRecordsNotYetDone() {
        offsets.commitDone();
        offsets.onPartitionsRevoked(List.of(P0, P1)); // as close() does

        assertEquals(Map.of(), committed(), "no record was done, so no offset may move");
        assertEquals(0, kafka.asyncCommits, "nothing to commit, nothing sent");
    }

    @Test
    void aRefusedCommitGoesAgainAfterTheNextPollEvenWithNoNewRecord() {
        offsets.done(record(P0, 5));
        kafka.refuse = true;
        offsets.commitDone();
        assertEquals(Map.of(), committed(), "the coordinator refused the commit");

        kafka.refuse = false;
        offsets.commitDone(); // after an empty poll: a quiet topic must not leave the group's offset behind

        assertEquals(Map.of(P0, new OffsetAndMetadata(6)), committed(),
                "the refused offset is committed once the coordinator takes commits again");
    }

    @Test
    void anAcknowledgedOffsetIsNotSentAgain() {
        offsets.done(record(P0, 5));
        offsets.commitDone();
        offsets.commitDone();
        offsets.commitDone();

        assertEquals(1, kafka.asyncCommits, "idle polls after an acknowledged commit send nothing");
    }

    @Test
    void aRevokedPartitionsDoneRecordsAreCommittedBeforeItGoesAndNeverAfter() {
        doneWithTheirCommitRefused(record(P0, 9), record(P1, 3)); // the poll's own commit did not get through

        offsets.onPartitionsRevoked(List.of(P0));
        assertEquals(Map.of(P0, new OffsetAndMetadata(10)), committed(),
                "the revoked partition's done records are committed before the handover; the kept one waits for its poll");

        // The next owner moves P0 on; this member's later commits must not take it back.
        kafka.commitSync(Map.of(P0, new OffsetAndMetadata(50)));
        offsets.commitDone();
        offsets.onPartitionsRevoked(List.of(P0, P1));
        assertEquals(Map.of(P0, new OffsetAndMetadata(50), P1, new OffsetAndMetadata(4)), committed(),
                "a revoked partition is forgotten: later commits carry only the partitions still owned");
    }

    @Test
    void aLostPartitionIsNeverCommitted() {
        doneWithTheirCommitRefused(record(P0, 4));

        offsets.onPartitionsLost(List.of(P0));
        offsets.commitDone();
        offsets.onPartitionsRevoked(List.of(P0, P1));

        assertNull(kafka.committed(Set.of(P0)).get(P0),
                "another member may already own a lost partition: nothing of it may be committed any more");
    }

    @Test
    void aLateAcknowledgementOfAnOlderCommitKeepsTheNewerDoneOffsetForTheNextCommit() {
        kafka.holdAcknowledgements = true;
        offsets.done(record(P0, 5));
        offsets.commitDone(); // {P0: 6} on its way
        offsets.done(record(P0, 6)); // done while that commit is in flight
        kafka.acknowledgeHeld(); // {P0: 6} acknowledged now
        kafka.holdAcknowledgements = false;

        offsets.commitDone();

        assertEquals(Map.of(P0, new OffsetAndMetadata(7)), committed(),
                "the older acknowledgement must not drop the newer offset, which the next commit carries");
    }

    @Test
    void aWakeUpDuringTheHandoverCommitDoesNotCostTheCommit() {
        doneWithTheirCommitRefused(record(P0, 8));
        kafka.wakeUpOnNextCommitSync = true; // stop() woke the consumer just as it handed the partition over

        offsets.onPartitionsRevoked(List.of(P0));

        assertEquals(Map.of(P0, new OffsetAndMetadata(9)), committed(),
                "the wake-up is spent by the first try; the handover commit goes once more");
    }

    @Test
    void aCommitWhoseAnswerNeverCameIsSentAgainOnceTheTopicIsQuiet() {
        // Seen after a broker failover (KafkaClusterIT): every record applied, the poll loop polling a quiet topic,
        // and the group's committed offsets left behind for good, so liveness named the consumer stalled (R6.1).
        kafka.loseAnswers = true;
        polledAndDone(record(P0, 9));
        offsets.commitDone();
        kafka.loseAnswers = false;
        assertEquals(Map.of(), committed(), "the commit was lost on its way");

        offsets.quiet();
        assertEquals(Map.of(), committed(), "a quiet poll right after the commit leaves it time to be answered");
        now += PollOffsets.CATCH_UP_NANOS;
        offsets.quiet();

        assertEquals(Map.of(P0, new OffsetAndMetadata(10)), committed(),
                "a quiet consumer's committed offsets reach its last done record, whatever became of the commit");
    }

    @Test
    void anAcknowledgedCommitTheGroupDoesNotShowIsSentAgainOnceTheTopicIsQuiet() {
        kafka.acknowledgeWithoutStoring = true;
        polledAndDone(record(P1, 4));
        offsets.commitDone();
        kafka.acknowledgeWithoutStoring = false;

        now += PollOffsets.CATCH_UP_NANOS;
        offsets.quiet();

        assertEquals(Map.of(P1, new OffsetAndMetadata(5)), committed(),
                "what the group's offsets show is what counts, not the commit's answer");
    }

    @Test
    void aQuietConsumerWhoseOffsetsAreCommittedSendsNothingMore() {
        polledAndDone(record(P0, 3));
        offsets.commitDone();
        int sent = kafka.asyncCommits;

        now += PollOffsets.CATCH_UP_NANOS;
        offsets.quiet();

        assertEquals(sent, kafka.asyncCommits, "committed offsets at the position: nothing to send again");
    }

    /** As the poll loop does: the record came from a poll (the position moves past it), then it was done with. */
    private void polledAndDone(ConsumerRecord<String, String> record) {
        TopicPartition partition = new TopicPartition(record.topic(), record.partition());
        kafka.seek(partition, record.offset() + 1);
        offsets.done(record);
    }

    @Test
    void aQuietConsumerNeverCommitsPastItsLastDoneRecordWhateverItsPosition() {
        kafka.loseAnswers = true;
        polledAndDone(record(P0, 4));
        offsets.commitDone();
        kafka.loseAnswers = false;
        kafka.seek(P0, 9); // records 5 to 8 polled and not (yet) done with

        now += PollOffsets.CATCH_UP_NANOS;
        offsets.quiet();

        assertEquals(Map.of(P0, new OffsetAndMetadata(5)), committed(),
                "R5.5: the catch-up commits the last done offset, never the position");
    }

    @Test
    void aRevokedPartitionIsNotCaughtUpAfterItWent() {
        kafka.loseAnswers = true;
        polledAndDone(record(P0, 4));
        offsets.commitDone();
        offsets.onPartitionsRevoked(List.of(P0)); // the handover commit is lost too
        kafka.loseAnswers = false;

        now += PollOffsets.CATCH_UP_NANOS;
        offsets.quiet();

        assertEquals(Map.of(), committed(), "another member may own it now: this one commits nothing of it");
    }

    /** Records done after a poll whose commit the coordinator refused; it takes commits again afterwards. */
    @SafeVarargs
    private void doneWithTheirCommitRefused(ConsumerRecord<String, String>... records) {
        kafka.refuse = true;
        for (ConsumerRecord<String, String> record : records) {
            offsets.done(record);
        }
        offsets.commitDone();
        kafka.refuse = false;
    }

    private static ConsumerRecord<String, String> record(TopicPartition partition, long offset) {
        return new ConsumerRecord<>(partition.topic(), partition.partition(), offset, "order-1", "{}");
    }

    private Map<TopicPartition, OffsetAndMetadata> committed() {
        Map<TopicPartition, OffsetAndMetadata> all = new HashMap<>(kafka.committed(Set.of(P0, P1)));
        all.values().removeIf(Objects::isNull);
        return all;
    }

    /**
     * MockConsumer whose asynchronous commits the group coordinator can refuse (as after a coordinator moved) or
     * acknowledge late, and whose synchronous commit a wake-up can interrupt.
     */
    private static final class Broker extends MockConsumer<String, String> {
        boolean refuse;
        boolean holdAcknowledgements;
        boolean wakeUpOnNextCommitSync;
        boolean loseAnswers;
        boolean acknowledgeWithoutStoring;
        int asyncCommits;
        private final List<Runnable> held = new ArrayList<>();

        void acknowledgeHeld() {
            List<Runnable> now = List.copyOf(held);
            held.clear();
            now.forEach(Runnable::run);
        }

        @Override
        public void commitSync(Map<TopicPartition, OffsetAndMetadata> offsets, Duration timeout) {
            if (wakeUpOnNextCommitSync) {
                wakeUpOnNextCommitSync = false;
                throw new WakeupException();
            }
            if (loseAnswers) {
                throw new org.apache.kafka.common.errors.TimeoutException("no answer from the coordinator");
            }
            super.commitSync(offsets, timeout);
        }

        Broker() {
            super(OffsetResetStrategy.EARLIEST);
        }

        @Override
        public synchronized void commitAsync(Map<TopicPartition, OffsetAndMetadata> offsets,
                                             OffsetCommitCallback callback) {
            asyncCommits++;
            if (loseAnswers) {
                return; // neither stored nor answered
            } else if (acknowledgeWithoutStoring) {
                callback.onComplete(offsets, null);
            } else if (holdAcknowledgements) {
                held.add(() -> super.commitAsync(offsets, callback));
            } else if (refuse) {
                callback.onComplete(offsets, new RetriableCommitFailedException("the coordinator moved"));
            } else {
                super.commitAsync(offsets, callback);
            }
        }
    }
}
