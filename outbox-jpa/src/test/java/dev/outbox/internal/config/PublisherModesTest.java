package dev.outbox.internal.config;

import org.junit.jupiter.api.Test;

import java.util.Map;
import java.util.Optional;
import java.util.function.Function;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class PublisherModesTest {

    private static Function<String, Optional<String>> settings(Map<String, String> values) {
        return name -> Optional.ofNullable(values.get(name));
    }

    @Test
    void theOutboxPublishesEveryTypeByDefault() {
        assertTrue(PublisherModes.outboxPublishes("OrderPaid", settings(Map.of())));
    }

    @Test
    void aTypeOfItsOwnOverridesTheDefaultBothWays() {
        Map<String, String> migrating = Map.of("outbox.publisher.mode", "shadow",
                "outbox.publisher.mode.OrderPaid", "publish");
        assertTrue(PublisherModes.outboxPublishes("OrderPaid", settings(migrating)), "switched over");
        assertFalse(PublisherModes.outboxPublishes("OrderPlaced", settings(migrating)), "still on the old path");
        assertFalse(PublisherModes.outboxPublishes("OrderPaid",
                settings(Map.of("outbox.publisher.mode.OrderPaid", "SHADOW"))), "case does not matter");
    }

    @Test
    void aWrongValueNamesTheVariable() {
        InvalidSettingException e = assertThrows(InvalidSettingException.class, () -> PublisherModes
                .outboxPublishes("OrderPaid", settings(Map.of("outbox.publisher.mode.OrderPaid", "both"))));
        assertEquals("outbox.publisher.mode.OrderPaid", e.name());
    }
}
