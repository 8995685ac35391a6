package dev.outbox.internal.persistence;

import jakarta.persistence.Column;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertFalse;

/** The mapping of the outbox row, where it carries a guarantee. */
class OutboxEventRowTest {

    @Test
    void theRecorderLeavesTheDueTimeToTheDatabasesClock() throws NoSuchFieldException {
        Column dueAt = OutboxEventRow.class.getDeclaredField("nextAttemptAt").getAnnotation(Column.class);
        // Issue 16 item 6: written from the recording JVM's clock, a server running 40 s ahead would hold back its
        // own events for 40 s; the schema's default (V6) is the database's time, the clock every claim compares with.
        assertFalse(dueAt.insertable(), "next_attempt_at must not be inserted by JPA: the database's default sets it");
    }
}
