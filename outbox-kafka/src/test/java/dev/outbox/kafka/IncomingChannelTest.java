package dev.outbox.kafka;

import dev.outbox.internal.config.InvalidSettingException;
import org.junit.jupiter.api.Test;

import java.util.Map;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Issue 42 item 5, R5.5: a Reactive Messaging channel read through the inbox must not commit offsets by itself, or
 * a crash loses the records committed before the inbox applied them. {@link ReactiveInbox#watch} refuses it.
 */
class IncomingChannelTest {

    private static IncomingChannel channel(Map<String, String> config) {
        return IncomingChannel.read("order-events", name -> Optional.ofNullable(config.get(name)), config.keySet());
    }

    @Test
    void aChannelThatAutoCommitsIsRefusedNamingItsVariable() {
        IncomingChannel channel = channel(Map.of(
                "mp.messaging.incoming.order-events.connector", "smallrye-kafka",
                "mp.messaging.incoming.order-events.enable.auto.commit", "true"));
        InvalidSettingException refused = assertThrows(InvalidSettingException.class,
                () -> channel.requireCommitOnAcknowledgement("loyalty"));
        assertEquals("mp.messaging.incoming.order-events.enable.auto.commit", refused.name());
        assertTrue(refused.getMessage().contains("loyalty") && refused.getMessage().contains("'true'"),
                refused.getMessage());
    }

    @Test
    void theConnectorsDefaultForAllItsChannelsCountsToo() {
        IncomingChannel channel = channel(Map.of(
                "mp.messaging.incoming.order-events.connector", "liberty-kafka",
                "mp.messaging.connector.liberty-kafka.enable.auto.commit", "true"));
        assertThrows(InvalidSettingException.class, () -> channel.requireCommitOnAcknowledgement("loyalty"),
                "enable.auto.commit=true set for every channel of the connector");
    }

    @Test
    void anUnsetValueIsRefusedWhereTheConnectorsDefaultIsNotKnown() {
        InvalidSettingException refused = assertThrows(InvalidSettingException.class, () -> channel(Map.of(
                "mp.messaging.incoming.order-events.connector", "another-kafka")).requireCommitOnAcknowledgement("loyalty"));
        assertTrue(refused.getMessage().contains("(not set)") && refused.getMessage().contains("another-kafka"),
                refused.getMessage());
        assertThrows(InvalidSettingException.class, () -> channel(Map.of()).requireCommitOnAcknowledgement("loyalty"),
                "a channel that names no connector");
    }

    /** A reviewer's find: the names MicroProfile Config lists hold an environment variable in its own spelling. */
    @Test
    void anAutoCommitSetInTheEnvironmentIsSeenThoughNoListedNameHasItsDottedForm() {
        Map<String, String> lookups = Map.of(
                "mp.messaging.incoming.order-events.connector", "smallrye-kafka",
                "mp.messaging.incoming.order-events.enable.auto.commit", "true");
        IncomingChannel channel = IncomingChannel.read("order-events", name -> Optional.ofNullable(lookups.get(name)),
                java.util.List.of("mp.messaging.incoming.order-events.connector",
                        "MP_MESSAGING_INCOMING_ORDER_EVENTS_ENABLE_AUTO_COMMIT"));
        assertThrows(InvalidSettingException.class, () -> channel.requireCommitOnAcknowledgement("loyalty"));
    }

    @Test
    void aChannelThatCommitsOnAcknowledgementIsAccepted() {
        assertDoesNotThrow(() -> channel(Map.of(
                "mp.messaging.incoming.order-events.connector", "liberty-kafka",
                "mp.messaging.incoming.order-events.enable.auto.commit", "false"))
                .requireCommitOnAcknowledgement("loyalty"), "the example's setting on Liberty");
        assertDoesNotThrow(() -> channel(Map.of(
                "mp.messaging.incoming.order-events.connector", "smallrye-kafka"))
                .requireCommitOnAcknowledgement("loyalty"), "SmallRye (WildFly) commits on acknowledgement by default");
        assertDoesNotThrow(() -> channel(Map.of(
                "mp.messaging.incoming.order-events.connector", "liberty-kafka"))
                .requireCommitOnAcknowledgement("loyalty"), "so does Open Liberty's connector");
        assertDoesNotThrow(() -> channel(Map.of(
                "mp.messaging.connector.liberty-kafka.enable.auto.commit", "true",
                "mp.messaging.incoming.order-events.connector", "liberty-kafka",
                "mp.messaging.incoming.order-events.enable.auto.commit", "false"))
                .requireCommitOnAcknowledgement("loyalty"), "the channel's own setting wins over the connector's");
    }

    @Test
    void theChannelsOwnSettingsNameItsGroupTopicAndServers() {
        IncomingChannel channel = channel(Map.of(
                "mp.messaging.incoming.order-events.connector", "liberty-kafka",
                "mp.messaging.connector.liberty-kafka.bootstrap.servers", "kafka1:9092",
                "mp.messaging.incoming.order-events.group.id", "loyalty",
                "mp.messaging.incoming.order-events.topic", "outbox.Order"));
        assertEquals("loyalty", channel.group("loyalty"));
        assertEquals("outbox.Order", channel.topic());
        assertEquals("kafka1:9092", channel.bootstrapServers(name -> Optional.empty(), java.util.List.of()));
        assertEquals("order-events", channel(Map.of()).topic(), "the topic defaults to the channel's name");
        assertEquals("mp.messaging.incoming.order-events.group.id", assertThrows(InvalidSettingException.class,
                () -> channel(Map.of()).group("loyalty")).name());
    }
}
