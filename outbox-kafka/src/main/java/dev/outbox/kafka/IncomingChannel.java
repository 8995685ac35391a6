package dev.outbox.kafka;

import dev.outbox.internal.config.InvalidSettingException;
import dev.outbox.internal.config.Setting;
import dev.outbox.internal.transport.kafka.KafkaSettings;

import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;

/**
 * An incoming Reactive Messaging channel's Kafka client settings as its connector sees them: the connector's
 * defaults ({@code mp.messaging.connector.<connector>.*}), then the channel's own ({@code
 * mp.messaging.incoming.<channel>.*}). Not {@code outbox.kafka.consumer.*}: those are KafkaInbox's, which no channel
 * reads.
 */
record IncomingChannel(String name, String connector, String autoCommit, Map<String, String> client) {

    /**
     * Connectors that turn auto-commit off unless told otherwise and commit on acknowledgement: SmallRye's (WildFly)
     * and Open Liberty's (26.0.0.3's KafkaIncomingConnector puts enable.auto.commit=false before the channel's own).
     */
    private static final Set<String> COMMIT_ON_ACK_BY_DEFAULT = Set.of("smallrye-kafka", "liberty-kafka");
    private static final String AUTO_COMMIT = "enable.auto.commit";

    static IncomingChannel read(String channel, Function<String, Optional<String>> source, Iterable<String> names) {
        String prefix = prefix(channel);
        String connector = source.apply(prefix + "connector").orElse(null);
        Map<String, String> client = new HashMap<>();
        if (connector != null) {
            client.putAll(Setting.under("mp.messaging.connector." + connector + ".", source, names));
        }
        client.putAll(Setting.under(prefix, source, names));
        // Looked up by name, not found among the names: MicroProfile Config maps an environment variable
        // (MP_MESSAGING_INCOMING_ORDER_EVENTS_ENABLE_AUTO_COMMIT) only for a look-up, and the connector obeys it.
        String autoCommit = source.apply(prefix + AUTO_COMMIT)
                .or(() -> connector == null ? Optional.empty()
                        : source.apply("mp.messaging.connector." + connector + "." + AUTO_COMMIT))
                .orElse(null);
        return new IncomingChannel(channel, connector, autoCommit, Map.copyOf(client));
    }

    /**
     * R5.5: the offset of a record may be committed only once the inbox transaction that applied it committed. A
     * channel that commits offsets on a timer commits records the inbox has not applied yet, and a crash then loses
     * them for good. Unset is off only for the connectors known to default to it.
     *
     * @throws InvalidSettingException naming the channel's {@code enable.auto.commit} unless it is off
     */
    void requireCommitOnAcknowledgement(String consumer) {
        boolean off = autoCommit == null ? connector != null && COMMIT_ON_ACK_BY_DEFAULT.contains(connector)
                : "false".equalsIgnoreCase(autoCommit.trim());
        if (!off) {
            throw new InvalidSettingException(prefix(name) + AUTO_COMMIT, "must be false for the channel " + name
                    + " that " + consumer + " reads through the inbox: an automatic commit acknowledges records before"
                    + " the inbox applied them, and a crash in between loses them (R5.5)" + (autoCommit != null ? ""
                    : connector == null ? "; the channel names no connector (" + prefix(name) + "connector)"
                    : "; what the " + connector + " connector does when it is not set is not known to the outbox"),
                    autoCommit == null ? "(not set)" : autoCommit);
        }
    }

    /** @throws InvalidSettingException naming the channel's {@code group.id} when it has none */
    String group(String consumer) {
        return Optional.ofNullable(client.get("group.id")).orElseThrow(() ->
                new InvalidSettingException(prefix(name) + "group.id", "must name the consumer group of the channel "
                        + name + " that " + consumer + " reads, so its lag can be watched", "(not set)"));
    }

    String topic() {
        return client.getOrDefault("topic", name);
    }

    String bootstrapServers(Function<String, Optional<String>> source, Iterable<String> names) {
        return Optional.ofNullable(client.get("bootstrap.servers"))
                .orElseGet(() -> KafkaSettings.read(source, names).bootstrapServers());
    }

    private static String prefix(String channel) {
        return "mp.messaging.incoming." + channel + ".";
    }
}
