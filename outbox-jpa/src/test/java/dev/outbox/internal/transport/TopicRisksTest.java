package dev.outbox.internal.transport;

import dev.outbox.internal.transport.TopicRisks.Found;
import dev.outbox.internal.transport.TopicRisks.Risk;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** R4.7, R5.7: what the checks of topics found, for readiness and the gauge, for as long as it holds. */
class TopicRisksTest {

    @Test
    void aRiskHoldsUntilALaterCheckOfItsTopicNoLongerFindsIt() {
        TopicRisks risks = new TopicRisks();
        risks.checked("outbox.Order", Map.of(Risk.COMPACTED, "compacted", Risk.SHORT_RETENTION, "1 day"));
        risks.checked("outbox.Invoice", Map.of());
        assertEquals(List.of(new Found("outbox.Order", Risk.COMPACTED, "compacted"),
                new Found("outbox.Order", Risk.SHORT_RETENTION, "1 day")), risks.found());
        risks.checked("outbox.Order", Map.of(Risk.SHORT_RETENTION, "1 day"));
        assertFalse(risks.holds("outbox.Order", Risk.COMPACTED), "the topic's cleanup.policy was changed");
        assertTrue(risks.holds("outbox.Order", Risk.SHORT_RETENTION));
        assertFalse(risks.holds("outbox.Invoice", Risk.SHORT_RETENTION));
    }

    @Test
    void aListenerHearsOfEachRiskOnceWhenFirstFoundAndOfThoseFoundBeforeItCame() {
        TopicRisks risks = new TopicRisks();
        risks.checked("a", Map.of(Risk.UNDER_REPLICATED, "1 replica"));
        List<String> heard = new ArrayList<>();
        risks.onFound(found -> heard.add(found.topic() + " " + found.risk()));
        risks.checked("a", Map.of(Risk.UNDER_REPLICATED, "1 replica"));
        risks.checked("b", Map.of(Risk.COMPACTED, "compacted"));
        assertEquals(List.of("a UNDER_REPLICATED", "b COMPACTED"), heard);
    }

    @Test
    void aFailingListenerNeitherStopsTheCheckNorTheOtherListeners() {
        TopicRisks risks = new TopicRisks();
        List<Found> heard = new ArrayList<>();
        risks.onFound(found -> {
            throw new IllegalStateException("metrics registry gone");
        });
        risks.onFound(heard::add);
        risks.checked("a", Map.of(Risk.COMPACTED, "compacted"));
        assertEquals(1, heard.size());
        assertTrue(risks.holds("a", Risk.COMPACTED));
    }
}
