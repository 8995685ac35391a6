package dev.outbox.internal.transport.jms;

import org.junit.jupiter.api.Test;

import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Issue 45 item 3 (R4.7): the publisher never sends through a factory that may lose acknowledged messages. */
class AssuredPersistenceTest {

    /** Shaped like Open Liberty's factories: a public getter of the mapping. */
    public static class LibertyLikeFactory {
        private final String mapping;

        LibertyLikeFactory(String mapping) {
            this.mapping = mapping;
        }

        public String getPersistentMapping() {
            return mapping;
        }
    }

    @Test
    void aFactoryMappingPersistentMessagesToAnythingButAssuredPersistentIsRefusedNamingTheSetting() {
        for (String mapping : new String[] {"ReliablePersistent", "ReliableNonPersistent", "BestEffortNonPersistent"}) {
            IllegalStateException refused = assertThrows(IllegalStateException.class, () -> AssuredPersistence.require(
                    "java:comp/DefaultJMSConnectionFactory", new LibertyLikeFactory(mapping), true), mapping);
            String message = refused.getMessage();
            assertTrue(message.contains(mapping) && message.contains("persistentMapping=\"AssuredPersistent\"")
                    && message.contains("java:comp/DefaultJMSConnectionFactory")
                    && message.contains("outbox.jms.connection-factory"), message);
        }
    }

    @Test
    void assuredPersistentPassesAndAFactoryThatCannotTellIsLetThrough() {
        assertDoesNotThrow(() -> AssuredPersistence.require("jms/cf", new LibertyLikeFactory("AssuredPersistent"),
                true));
        assertEquals(Optional.empty(), AssuredPersistence.mappingOf(new Object()), "a factory without the getter");
        assertDoesNotThrow(() -> AssuredPersistence.require("jms/cf", new Object(), true),
                "WildFly's Artemis and other providers: said once, not refused");
    }

    @Test
    void theSettingLetsAMeasurementRunOnAnUnassuredFactoryWithAWarning() {
        assertDoesNotThrow(() -> AssuredPersistence.require("jms/cf", new LibertyLikeFactory("ReliableNonPersistent"),
                false));
    }
}
