package dev.outbox.internal.transport.jms;

import dev.outbox.internal.transport.jms.AssuredPersistenceTest.LibertyLikeFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * R4.7, issue 45 item 3: a connection factory that may lose acknowledged messages is refused at the publisher's
 * start; one that was not bound yet when the publisher started is checked before the first send that finds it, and
 * nothing is sent through it while it is refused.
 */
class PersistenceCheckTest {

    private static final String FACTORY = "java:comp/DefaultJMSConnectionFactory";
    private final AtomicReference<Object> bound = new AtomicReference<>();
    private final Logger log = Logger.getLogger(PersistenceCheck.class.getName());
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
    void aFactoryBoundAtStartThatMayLoseMessagesStopsTheStart() {
        bound.set(new LibertyLikeFactory("ReliablePersistent"));
        assertThrows(IllegalStateException.class, () -> check(true).atStart());
    }

    @Test
    void aFactoryBoundOnlyAfterTheStartIsCheckedBeforeTheFirstSendAndNothingGoesThroughItWhileRefused() {
        log.addHandler(handler);
        PersistenceCheck check = check(true);
        assertDoesNotThrow(check::atStart, "not bound yet: the first send names the missing factory");
        assertTrue(check.allowsSend(), "still not bound: the send itself names the missing factory (OUTBOX-3001)");

        bound.set(new LibertyLikeFactory("ReliablePersistent"));
        assertFalse(check.allowsSend(), "bound now, and it may lose acknowledged messages: nothing is sent");
        assertFalse(check.allowsSend());
        List<String> refused = lines.stream().filter(line -> line.contains("OUTBOX-3005")).toList();
        assertEquals(1, refused.size(), "said once, not per send: " + lines);
        assertTrue(refused.get(0).startsWith("SEVERE") && refused.get(0).contains("persistentMapping")
                && refused.get(0).contains(FACTORY), refused.get(0));

        bound.set(new LibertyLikeFactory("AssuredPersistent")); // an operator fixed server.xml while it ran
        assertTrue(check.allowsSend(), "a fixed factory sends");
    }

    @Test
    void withTheRequirementTurnedOffAFactoryThatMayLoseMessagesSends() {
        bound.set(new LibertyLikeFactory("ReliablePersistent"));
        PersistenceCheck check = check(false);
        assertDoesNotThrow(check::atStart);
        assertTrue(check.allowsSend());
    }

    private PersistenceCheck check(boolean required) {
        return new PersistenceCheck(FACTORY, name -> bound.get(), required);
    }
}
