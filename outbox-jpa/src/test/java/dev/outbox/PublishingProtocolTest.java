package dev.outbox;

import dev.outbox.internal.config.InvalidSettingException;
import org.junit.jupiter.api.Test;

import java.util.Map;
import java.util.Optional;
import java.util.function.Function;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class PublishingProtocolTest {

    private static Function<String, Optional<String>> settings(Map<String, String> values) {
        return name -> Optional.ofNullable(values.get(name));
    }

    @Test
    void theOutboxPublishesEveryTypeByDefault() {
        assertTrue(PublishingProtocol.outboxPublishes("OrderPaid", settings(Map.of())));
    }

    @Test
    void aTypeOfItsOwnOverridesTheDefaultBothWays() {
        Map<String, String> migrating = Map.of("outbox.publisher.mode", "shadow",
                "outbox.publisher.mode.OrderPaid", "publish");
        assertTrue(PublishingProtocol.outboxPublishes("OrderPaid", settings(migrating)), "switched over");
        assertFalse(PublishingProtocol.outboxPublishes("OrderPlaced", settings(migrating)), "still on the old path");
        assertFalse(PublishingProtocol.outboxPublishes("OrderPaid",
                settings(Map.of("outbox.publisher.mode.OrderPaid", "SHADOW"))), "case does not matter");
    }

    @Test
    void aWrongValueNamesTheVariable() {
        InvalidSettingException e = assertThrows(InvalidSettingException.class, () -> PublishingProtocol
                .outboxPublishes("OrderPaid", settings(Map.of("outbox.publisher.mode.OrderPaid", "both"))));
        assertEquals("outbox.publisher.mode.OrderPaid", e.name());
    }
}
