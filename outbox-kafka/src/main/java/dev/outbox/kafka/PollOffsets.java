package dev.outbox.kafka;

import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;

import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.logging.Logger;

/**
 * The offsets one consumer has done with (R5.5: past records whose inbox transactions committed or that were
 * parked). After each poll they are committed asynchronously: a synchronous commit per poll waited for the group
 * coordinator (about 10 ms a poll on the test broker, half of a small poll's whole cycle, the B3 benchmark).
 * A commit that fails leaves the offset where it was and the next one supersedes it; records read again are
 * absorbed by the inbox. Before partitions go to another member, and before the consumer closes on a stop,
 * what is done is committed synchronously, so the next owner re-reads as little as possible.
 */
final class PollOffsets implements ConsumerRebalanceListener {

    private static final Logger LOG = Logger.getLogger(PollOffsets.class.getName());

    private static final Duration CLOSING_COMMIT = Duration.ofSeconds(5);

    private final String consumer;
    private final Consumer<String, String> kafka;
    private final Map<TopicPartition, OffsetAndMetadata> done = new HashMap<>();

    PollOffsets(String consumer, Consumer<String, String> kafka) {
        this.consumer = consumer;
        this.kafka = kafka;
    }

    void done(ConsumerRecord<String, String> record) {
        done.put(new TopicPartition(record.topic(), record.partition()), new OffsetAndMetadata(record.offset() + 1));
    }

    void commitDone() {
        if (done.isEmpty()) {
            return;
        }
        kafka.commitAsync(Map.copyOf(done), (offsets, failure) -> {
            if (failure != null) {
                LOG.fine(() -> "consumer " + consumer + ": an offset commit failed (" + failure.getClass().getName()
                        + "); a later commit supersedes it, or the records come again and the inbox absorbs them");
            }
        });
    }

    /**
     * Called inside poll, so every record polled before is done with: their offsets are committed before the
     * handover, and forgotten, so no later commit of this member moves the partition's offset back behind the
     * next owner's progress.
     */
    @Override
    public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
        Map<TopicPartition, OffsetAndMetadata> leaving = new HashMap<>();
        for (TopicPartition partition : partitions) {
            OffsetAndMetadata offset = done.remove(partition);
            if (offset != null) {
                leaving.put(partition, offset);
            }
        }
        commitNow(leaving, "partitions revoked");
    }

    @Override
    public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
    }

    /** Another member may already own them: nothing of theirs can be committed any more. */
    @Override
    public void onPartitionsLost(Collection<TopicPartition> partitions) {
        partitions.forEach(done::remove);
    }

    void commitBeforeClosing() {
        commitNow(Map.copyOf(done), "closing");
    }

    private void commitNow(Map<TopicPartition, OffsetAndMetadata> offsets, String why) {
        if (offsets.isEmpty()) {
            return;
        }
        try {
            kafka.commitSync(offsets, CLOSING_COMMIT);
        } catch (RuntimeException e) {
            // The records come again to whoever reads these partitions next; the inbox absorbs them (R5.5).
            LOG.fine(() -> "consumer " + consumer + ": offset commit on " + why + " failed ("
                    + e.getClass().getName() + "); the records are read again and absorbed by the inbox");
        }
    }
}
