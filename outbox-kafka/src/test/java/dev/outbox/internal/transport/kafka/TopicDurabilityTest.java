package dev.outbox.internal.transport.kafka;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** R4.7: which topics can lose an acknowledged record, or stop publishing, when one broker dies. */
class TopicDurabilityTest {

    @Test
    void threeReplicasAckedByTwoKeepAnAckedRecordThroughTheLossOfOneBroker() {
        assertEquals(java.util.Optional.empty(), TopicDurability.verdict("t", 3, 2));
        assertEquals(java.util.Optional.empty(), TopicDurability.verdict("t", 5, 3));
    }

    @Test
    void aSingleReplicaOrASingleInSyncAckIsNamedAsLosingAckedRecords() {
        for (int[] topic : new int[][] {{1, 1}, {3, 1}, {2, 1}}) {
            String warning = TopicDurability.verdict("orders", topic[0], topic[1]).orElseThrow(() ->
                    new AssertionError(topic[0] + " replicas, min.insync.replicas=" + topic[1] + " passed"));
            assertTrue(warning.contains("orders") && warning.contains("is lost"), warning);
        }
    }

    @Test
    void minInSyncAsHighAsTheReplicasIsNamedAsStoppingOnOneBrokerDown() {
        String warning = TopicDurability.verdict("orders", 3, 3).orElseThrow();
        assertTrue(warning.contains("stops publishing"), warning);
    }
}
