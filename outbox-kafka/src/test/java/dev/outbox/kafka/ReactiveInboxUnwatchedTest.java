package dev.outbox.kafka;

import dev.outbox.internal.inbox.kafka.DeadLetters;
import dev.outbox.internal.inbox.watch.ConsumerWatch;
import org.apache.kafka.common.header.Headers;
import org.eclipse.microprofile.reactive.messaging.Message;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Issue 42 item 5, R5.5: the channel's enable.auto.commit is checked by ReactiveInbox.watch, which only knows the
 * channel. A consumer that processes without ever being watched runs on a channel nobody checked (and that liveness
 * does not watch): it is said once, naming what to call, but only after a grace, since records often arrive before
 * the application's start-up observers (where watch is called) have run.
 */
class ReactiveInboxUnwatchedTest {

    private final Logger log = Logger.getLogger(ReactiveInbox.class.getName());
    private final List<String> lines = new CopyOnWriteArrayList<>();
    private final Handler handler = new Handler() {
        @Override
        public void publish(LogRecord record) {
            lines.add(record.getLevel() + " " + record.getMessage());
        }

        @Override
        public void flush() {
        }

        @Override
        public void close() {
        }
    };

    @AfterEach
    void detach() {
        log.removeHandler(handler);
    }

    @Test
    void aConsumerStillUnwatchedAMinuteAfterItsFirstRecordIsNamedOnceWithTheCallThatChecksItsChannel() {
        ReactiveInbox inbox = inbox();
        process(inbox, "loyalty");
        process(inbox, "receipts");
        clock = clock.plusSeconds(30);
        process(inbox, "loyalty");
        assertEquals(List.of(), unwatchedLines(), "records often come before the start-up observers call watch");

        clock = clock.plusSeconds(31);
        for (int i = 0; i < 3; i++) {
            process(inbox, "loyalty");
        }
        process(inbox, "receipts");
        List<String> unwatched = unwatchedLines();
        assertEquals(2, unwatched.size(), "one line per unwatched consumer, not per record: " + lines);
        assertTrue(unwatched.get(0).startsWith("WARNING") && unwatched.get(0).contains("loyalty")
                && unwatched.get(0).contains("ReactiveInbox.watch") && unwatched.get(0).contains("enable.auto.commit"),
                unwatched.get(0));
    }

    @Test
    void aConsumerWatchedAfterItsFirstRecordsIsNeverNamed() {
        ReactiveInbox inbox = inbox();
        process(inbox, "loyalty");
        inbox.watched("loyalty"); // what watch does once the channel passed its check
        clock = clock.plusSeconds(120);
        process(inbox, "loyalty");
        assertEquals(List.of(), unwatchedLines());
    }

    private Instant clock = Instant.parse("2026-12-07T10:00:00Z");

    private ReactiveInbox inbox() {
        log.addHandler(handler);
        ReactiveInbox inbox = new ReactiveInbox();
        inbox.watch = new ConsumerWatch();
        inbox.deadLetters = new DeadLetters() {
            @Override
            public void park(String consumer, String topic, String key, String value, Headers headers, String failure,
                             String position, String description) {
                // a message without an outbox event id is parked: not what this test is about
            }
        };
        return inbox;
    }

    private void process(ReactiveInbox inbox, String consumer) {
        inbox.clock = Clock.fixed(clock, ZoneOffset.UTC);
        inbox.process(consumer, Message.of("{}"), event -> { });
    }

    private List<String> unwatchedLines() {
        return lines.stream().filter(line -> line.contains("OUTBOX-4104")).toList();
    }
}
