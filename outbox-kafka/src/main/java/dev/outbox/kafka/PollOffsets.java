package dev.outbox.kafka;

import dev.outbox.internal.transport.kafka.KafkaMessages;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.InterruptException;
import org.apache.kafka.common.errors.WakeupException;

import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The offsets one consumer has done with (R5.5: past records whose inbox transactions committed or that were
 * parked) and not yet seen committed. After each poll they are committed asynchronously: a synchronous commit per
 * poll waited for the group coordinator (about 10 ms a poll on the test broker, half of a small poll's whole cycle
 * in the B3 benchmark). An offset leaves this map once the broker acknowledged it (unless a later one replaced it
 * meanwhile); one whose commit failed stays and goes again after the next poll, records or not, so a quiet topic
 * does not keep a failed commit behind (its lag would name the consumer stalled, R6.1); and a quiet consumer now and
 * then brings the group's committed offsets up to its last done records, for a commit never answered ({@link #quiet}).
 * Partitions that go to
 * another member, on a rebalance or as the consumer closes, are committed synchronously first and forgotten.
 * Callbacks and listener calls all run on the consumer's own thread, inside poll, commit or close.
 */
final class PollOffsets implements ConsumerRebalanceListener {

    private static final Logger LOG = Logger.getLogger(PollOffsets.class.getName());

    private static final Duration HANDOVER_COMMIT = Duration.ofSeconds(5);
    /** How often a quiet consumer checks that the group's committed offsets reached its last done records. */
    static final long CATCH_UP_NANOS = TimeUnit.SECONDS.toNanos(10);
    private static final Duration CATCH_UP_READ = Duration.ofSeconds(2);

    private final String consumer;
    private final Consumer<String, String> kafka;
    private final Map<TopicPartition, OffsetAndMetadata> unacknowledged = new HashMap<>();
    /** The offset just past the last done record of each partition still owned, acknowledged or not. */
    private final Map<TopicPartition, OffsetAndMetadata> doneThrough = new HashMap<>();
    private final LongSupplier clock;
    private boolean unsent;
    private boolean failing;
    private long lastSent;
    private long lastCatchUp;

    PollOffsets(String consumer, Consumer<String, String> kafka) {
        this(consumer, kafka, System::nanoTime);
    }

    PollOffsets(String consumer, Consumer<String, String> kafka, LongSupplier clock) {
        this.consumer = consumer;
        this.kafka = kafka;
        this.clock = clock;
        this.lastCatchUp = clock.getAsLong();
    }

    /** Called only once the record is done with: its inbox transaction committed, or it was parked. */
    void done(ConsumerRecord<String, String> record) {
        TopicPartition partition = new TopicPartition(record.topic(), record.partition());
        OffsetAndMetadata next = new OffsetAndMetadata(record.offset() + 1);
        unacknowledged.put(partition, next);
        doneThrough.put(partition, next);
        unsent = true;
    }

    /** After every poll: sends what is done and not yet sent, or sent and refused. */
    void commitDone() {
        if (!unsent || unacknowledged.isEmpty()) {
            return;
        }
        Map<TopicPartition, OffsetAndMetadata> sent = Map.copyOf(unacknowledged);
        unsent = false;
        lastSent = clock.getAsLong();
        kafka.commitAsync(sent, (offsets, failure) -> {
            if (failure == null) {
                sent.forEach(unacknowledged::remove); // only where no later offset replaced it meanwhile
                commitsWentThrough();
            } else {
                unsent = true;
                if (!failing) {
                    failing = true;
                    KafkaMessages.OFFSET_COMMIT_FAILED.log(LOG,
                            () -> "consumer " + consumer + ": an offset commit failed (" + failure.getClass().getName()
                            + "); it goes again after the next poll, and records read again meanwhile are absorbed by"
                            + " the inbox");
                }
            }
        });
    }

    /**
     * After a poll that returned nothing: sends what is done, and every {@link #CATCH_UP_NANOS} makes sure the group's
     * committed offsets reached the last done offset of each partition this consumer owns, whatever became of its
     * commits (R5.5: still only past records it was told are done). Seen after a broker failover (KafkaClusterIT):
     * every record applied, the loop polling, an asynchronous commit that was never answered or never stored, and
     * the group's offsets behind for good: liveness named the consumer stalled (R6.1). A check that fails is only
     * logged: the next one asks again.
     */
    void quiet() {
        commitDone();
        long now = clock.getAsLong();
        if (now - lastCatchUp < CATCH_UP_NANOS || doneThrough.isEmpty()) {
            return;
        }
        lastCatchUp = now;
        Map<TopicPartition, OffsetAndMetadata> behind = new HashMap<>();
        try {
            Map<TopicPartition, OffsetAndMetadata> committed = kafka.committed(doneThrough.keySet(), CATCH_UP_READ);
            doneThrough.forEach((partition, done) -> {
                OffsetAndMetadata stored = committed.get(partition);
                if (stored == null || stored.offset() < done.offset()) {
                    behind.put(partition, done);
                }
            });
        } catch (WakeupException | InterruptException stopping) {
            throw stopping;
        } catch (KafkaException notNow) { // a timeout included
            LOG.fine(() -> "consumer " + consumer + ": committed offsets unknown now (" + notNow + ")");
            return;
        }
        if (behind.isEmpty()) {
            return;
        }
        // Only a commit older than a check is overdue; one sent a moment ago is on its way.
        boolean overdue = unacknowledged.isEmpty() || now - lastSent >= CATCH_UP_NANOS;
        if (overdue) {
            String unanswered = unacknowledged.isEmpty() ? "every commit answered"
                    : "a commit sent " + TimeUnit.NANOSECONDS.toSeconds(now - lastSent) + " s ago and unanswered";
            KafkaMessages.OFFSETS_BEHIND.log(LOG,
                    () -> "consumer " + consumer + ": the group's committed offsets stayed behind the records done"
                    + " with on a quiet topic (" + unanswered + "); committing them again: " + behind);
            unacknowledged.putAll(behind);
            unsent = true;
            commitDone();
        }
    }

    /**
     * Called inside poll (a rebalance) or close: every record polled before is done with, or was never marked done.
     * What is done is committed before the handover and forgotten, so no later commit of this member moves the
     * partition's offset back behind the next owner's progress.
     */
    @Override
    public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
        Map<TopicPartition, OffsetAndMetadata> leaving = new HashMap<>();
        for (TopicPartition partition : partitions) {
            doneThrough.remove(partition);
            OffsetAndMetadata offset = unacknowledged.remove(partition);
            if (offset != null) {
                leaving.put(partition, offset);
            }
        }
        if (leaving.isEmpty()) {
            return;
        }
        try {
            handOver(leaving);
        } catch (WakeupException e) {
            // stop() woke the consumer during the commit; the wake-up is spent, so the commit can go once more.
            try {
                handOver(leaving);
            } catch (RuntimeException again) {
                notHandedOver(leaving, again, Level.FINE);
            }
        } catch (InterruptException e) {
            notHandedOver(leaving, e, Level.FINE); // the application is stopping
        } catch (RuntimeException e) {
            notHandedOver(leaving, e, Level.WARNING);
        }
    }

    private void handOver(Map<TopicPartition, OffsetAndMetadata> leaving) {
        kafka.commitSync(leaving, HANDOVER_COMMIT);
        commitsWentThrough();
    }

    /** Any commit that went through ends a streak of refusals: the next refusal warns again. */
    private void commitsWentThrough() {
        if (failing) {
            failing = false;
            KafkaMessages.OFFSETS_COMMITTED_AGAIN.log(LOG,
                    () -> "consumer " + consumer + ": offsets are committed again");
        }
    }

    /** The records come again to whoever reads these partitions next; the inbox absorbs them (R5.5). */
    private void notHandedOver(Map<TopicPartition, OffsetAndMetadata> leaving, RuntimeException e, Level level) {
        Supplier<String> text = () -> "consumer " + consumer + ": the offset commit before handing over "
                + leaving.keySet() + " failed (" + e.getClass().getName() + "); their next reader reads some records"
                + " again and the inbox absorbs them";
        if (level == Level.FINE) {
            LOG.fine(text);
        } else {
            KafkaMessages.HANDOVER_COMMIT_FAILED.log(LOG, text);
        }
    }

    @Override
    public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
    }

    /** Another member may already own them: nothing of theirs can be committed any more. */
    @Override
    public void onPartitionsLost(Collection<TopicPartition> partitions) {
        partitions.forEach(unacknowledged::remove);
        partitions.forEach(doneThrough::remove);
        if (unacknowledged.isEmpty()) {
            failing = false; // nothing refused is left: the next refusal is a new streak, and says so
        }
    }
}
