package dev.outbox.internal.protocol;

import dev.outbox.internal.persistence.Expired;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** Cleanup's decisions (R8.1, R5.6): each kind's cut-off, and small batches until one comes back short. */
class RetentionTest {

    private static final OffsetDateTime NOW = OffsetDateTime.of(2026, 12, 6, 12, 0, 0, 0, ZoneOffset.UTC);
    private final Retention retention = new Retention(Duration.ofDays(7), Duration.ofDays(30), 100, 3);
    private final List<String> batches = new ArrayList<>();

    @Test
    void eachKindIsCutOffByItsOwnRetention() {
        retention.run(NOW, (what, cutOff, limit) -> {
            batches.add(what + " before " + cutOff.toLocalDate() + " limit " + limit);
            return 0;
        });
        assertEquals(List.of("DELIVERED_EVENTS before 2026-11-29 limit 100",
                "INBOX_MARKS before 2026-12-06 limit 100", // a mark carries its own retain-until
                "INBOX_HOLDS before 2026-11-06 limit 100",
                "SETTLED_SIDE_EFFECTS before 2026-11-06 limit 100"), batches);
    }

    @Test
    void aKindIsDeletedInBatchesUntilOneComesBackShortOrTheRunsLimit() {
        int[] delivered = {100, 100, 40};
        int[] marks = {100, 100, 100, 100};
        Retention.Deleted deleted = retention.run(NOW, (what, cutOff, limit) -> {
            batches.add(what.name());
            int call = (int) batches.stream().filter(what.name()::equals).count() - 1;
            return what == Expired.DELIVERED_EVENTS ? delivered[call] : what == Expired.INBOX_MARKS ? marks[call] : 0;
        });
        assertEquals(new Retention.Deleted(240, 300, 0, 0), deleted, "three batches at most per kind and run");
        assertEquals(3, batches.stream().filter("INBOX_MARKS"::equals).count(), "the run's limit stops a full kind");
        assertEquals(1, batches.stream().filter("INBOX_HOLDS"::equals).count(), "a short first batch ends a kind");
    }
}
