package dev.outbox.kafka;

import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.MockConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.consumer.OffsetResetStrategy;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

/**
 * R5.5 for {@link KafkaInbox}'s offsets: committed only past records it was told are done, never again for a
 * partition that went to another member. Kafka's MockConsumer records what is committed; the commits themselves
 * are exercised against a real broker by KafkaIT and KafkaClusterIT.
 */
class PollOffsetsTest {

    private static final TopicPartition P0 = new TopicPartition("orders", 0);
    private static final TopicPartition P1 = new TopicPartition("orders", 1);

    private final MockConsumer<String, String> kafka = new MockConsumer<>(OffsetResetStrategy.EARLIEST);
    private final PollOffsets offsets = new PollOffsets("invoicing", kafka);

    PollOffsetsTest() {
        kafka.assign(List.of(P0, P1)); // MockConsumer reports a committed offset only for assigned partitions
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
        offsets.commitBeforeClosing();

        assertEquals(Map.of(), committed(), "no record was done, so no offset may move");
    }

    @Test
    void aRevokedPartitionsDoneRecordsAreCommittedBeforeItGoesAndNeverAfter() {
        offsets.done(record(P0, 9));
        offsets.done(record(P1, 3));

        offsets.onPartitionsRevoked(List.of(P0));
        assertEquals(Map.of(P0, new OffsetAndMetadata(10)), committed(),
                "the revoked partition's done records are committed before the handover; the kept one waits for its poll");

        // The next owner moves P0 on; this member's later commits must not take it back.
        kafka.commitSync(Map.of(P0, new OffsetAndMetadata(50)));
        offsets.commitDone();
        offsets.commitBeforeClosing();
        assertEquals(Map.of(P0, new OffsetAndMetadata(50), P1, new OffsetAndMetadata(4)), committed(),
                "a revoked partition is forgotten: later commits carry only the partitions still owned");
    }

    @Test
    void aLostPartitionIsNeverCommitted() {
        offsets.done(record(P0, 4));

        offsets.onPartitionsLost(List.of(P0));
        offsets.commitDone();
        offsets.commitBeforeClosing();

        assertNull(kafka.committed(Set.of(P0)).get(P0),
                "another member may already own a lost partition: nothing of it may be committed any more");
    }

    private static ConsumerRecord<String, String> record(TopicPartition partition, long offset) {
        return new ConsumerRecord<>(partition.topic(), partition.partition(), offset, "order-1", "{}");
    }

    private Map<TopicPartition, OffsetAndMetadata> committed() {
        Map<TopicPartition, OffsetAndMetadata> all = new java.util.HashMap<>(kafka.committed(Set.of(P0, P1)));
        all.values().removeIf(java.util.Objects::isNull);
        return all;
    }
}
