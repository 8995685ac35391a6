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

    private static final java.time.Duration WEEK = java.time.Duration.ofDays(7);

    @Test
    void aTopicThatKeepsRecordsAsLongAsTheLagBudgetOrForeverLosesNothingAConsumerNeeds() {
        assertEquals(java.util.Map.of(), TopicDurability.retentionRisks("t", "delete", "604800000", WEEK));
        assertEquals(java.util.Map.of(), TopicDurability.retentionRisks("t", "delete", "-1", WEEK));
        assertEquals(java.util.Map.of(), TopicDurability.retentionRisks("t", null, null, WEEK), "nothing said");
    }

    @Test
    void aRetentionShorterThanTheLagBudgetIsNamedWithBothValuesAndTheSetting() {
        String why = TopicDurability.retentionRisks("orders", "delete", "86400000", WEEK)
                .get(dev.outbox.internal.transport.TopicRisks.Risk.SHORT_RETENTION);
        assertTrue(why != null && why.contains("orders") && why.contains("retention.ms=86400000")
                && why.contains("outbox.kafka.consumer-lag-budget") && why.contains("P7D"), String.valueOf(why));
    }

    @Test
    void aCompactedTopicIsNamedWhateverElseItsPolicySays() {
        for (String policy : new String[] {"compact", "compact,delete", "delete,COMPACT"}) {
            assertTrue(TopicDurability.retentionRisks("orders", policy, "-1", WEEK)
                    .containsKey(dev.outbox.internal.transport.TopicRisks.Risk.COMPACTED), policy);
        }
    }
}
