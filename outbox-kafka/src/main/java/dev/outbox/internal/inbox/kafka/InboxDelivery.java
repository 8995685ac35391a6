package dev.outbox.internal.inbox.kafka;

import dev.outbox.InboxedEvent;
import dev.outbox.internal.config.Settings;
import dev.outbox.internal.failure.Causes;
import dev.outbox.internal.inbox.InboxAttempt;
import dev.outbox.internal.inbox.Received;
import dev.outbox.internal.inbox.watch.ConsumerWatch;
import dev.outbox.internal.transport.kafka.KafkaMessages;
import dev.outbox.kafka.KafkaInbox;
import jakarta.annotation.PostConstruct;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import org.eclipse.microprofile.config.Config;
import org.eclipse.microprofile.config.ConfigProvider;

import java.util.function.Consumer;
import java.util.logging.Logger;

/**
 * One Kafka record through the inbox, for both ways of consuming (the {@link KafkaInbox} poller and Reactive
 * Messaging): the mark and the business change in one new transaction (R5.1, R5.3), duplicates absorbed and
 * counted, an early strict version stored to be applied in its turn (R5.7), a change that keeps failing retried
 * {@code outbox.inbox.max-attempts} times and then parked, a database outage retried until it ends. It returns
 * only when the record is done with: then, and only then, may its offset be committed (R5.5).
 */
@ApplicationScoped
public class InboxDelivery {

    private static final Logger LOG = Logger.getLogger(InboxDelivery.class.getName());
    private static final long MAX_PAUSE_MS = 5_000;

    @Inject
    InboxAttempt attempt;

    @Inject
    ConsumerWatch watch;

    private int maxAttempts;

    @PostConstruct
    void configure() {
        Config config = ConfigProvider.getConfig();
        maxAttempts = Settings.INBOX_MAX_ATTEMPTS.integer(name -> config.getOptionalValue(name, String.class));
    }

    /**
     * @param park called with the failure class when the change failed {@code max-attempts} times; it must not
     *             return before the record is parked (a dead-letter topic), since the offset is committed next
     */
    public void deliver(String consumer, Received received, Consumer<InboxedEvent> change, Consumer<String> park) {
        int failures = 0;
        InboxedEvent event = received.event();
        String position = received.brokerId();
        while (true) {
            try {
                attempt.attempt(consumer, received, turn -> change.accept(turn.event()));
            } catch (Throwable e) {
                // Anything the change throws fails this attempt and, repeated, parks the record alone (a missing
                // class, an assertion, a recursion, a custom Error): the poll thread never dies of one record. Only a
                // VM error that is no StackOverflowError (out of memory, an internal error) goes on up.
                if (e instanceof VirtualMachineError fatal && !(e instanceof StackOverflowError)) {
                    throw fatal;
                }
                watch.progressed(consumer); // a failed attempt is an attempt: the consumer is alive (ConsumerWatch)
                if (Causes.isDatabaseOutage(e)) {
                    KafkaMessages.DATABASE_UNREACHABLE.log(LOG,
                            () -> "consumer " + consumer + " cannot reach its database for " + event.describe()
                            + " (" + e.getClass().getName() + "); retrying until it is back");
                    watch.waitingForDatabase(consumer);
                    pause(MAX_PAUSE_MS);
                    continue;
                }
                failures++;
                int attemptNumber = failures;
                String failure = Causes.root(e).getClass().getSimpleName();
                if (failures >= maxAttempts) {
                    park.accept(failure);
                    return;
                }
                KafkaMessages.CONSUMER_FAILED.log(LOG,
                        () -> "consumer " + consumer + " failed on " + event.describe() + ", attempt " + attemptNumber
                        + " of " + maxAttempts + ", broker id " + position + ": " + failure);
                pause(Math.min(MAX_PAUSE_MS, 200L << Math.min(attemptNumber, 10)));
                continue;
            }
            // Applied, absorbed, stored to wait for its turn (R5.7) or parked as a fork: done with, either way.
            watch.progressed(consumer);
            return;
        }
    }

    static void pause(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while retrying an inbox delivery", e);
        }
    }
}
