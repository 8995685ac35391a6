package dev.outbox.kafka;

import dev.outbox.internal.config.InvalidSettingException;
import dev.outbox.internal.config.Setting;
import dev.outbox.internal.transport.kafka.KafkaSettings;

import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;

/**
 * An incoming Reactive Messaging channel's Kafka client settings as its connector sees them: the connector's
 * defaults ({@code mp.messaging.connector.<connector>.*}), then the channel's own ({@code
 * mp.messaging.incoming.<channel>.*}). Not {@code outbox.kafka.consumer.*}: those are KafkaInbox's, which no channel
 * reads.
 */
record IncomingChannel(String name, String connector, Map<String, String> client) {

    /** SmallRye's connector (WildFly) turns auto-commit off unless told otherwise; Liberty's passes the client's on. */
    private static final String COMMITS_ON_ACK_BY_DEFAULT = "smallrye-kafka";

    static IncomingChannel read(String channel, Function<String, Optional<String>> source, Iterable<String> names) {
        String prefix = prefix(channel);
        String connector = source.apply(prefix + "connector").orElse(null);
        Map<String, String> client = new HashMap<>();
        if (connector != null) {
            client.putAll(Setting.under("mp.messaging.connector." + connector + ".", source, names));
        }
        client.putAll(Setting.under(prefix, source, names));
        return new IncomingChannel(channel, connector, Map.copyOf(client));
    }

    /**
     * R5.5: the offset of a record may be committed only once the inbox transaction that applied it committed. A
     * channel that commits offsets on a timer commits records the inbox has not applied yet, and a crash then loses
     * them for good; so does one that leaves the setting to the Kafka client, whose default is to auto-commit.
     *
     * @throws InvalidSettingException naming the channel's {@code enable.auto.commit} unless it is off
     */
    void requireCommitOnAcknowledgement(String consumer) {
        String autoCommit = client.get("enable.auto.commit");
        boolean off = autoCommit == null ? COMMITS_ON_ACK_BY_DEFAULT.equals(connector)
                : "false".equalsIgnoreCase(autoCommit.trim());
        if (!off) {
            throw new InvalidSettingException(prefix(name) + "enable.auto.commit", "must be false for the channel "
                    + name + " that " + consumer + " reads through the inbox: an automatic commit acknowledges records"
                    + " before the inbox applied them, and a crash in between loses them (R5.5)"
                    + (autoCommit == null ? "; the " + connector + " connector leaves it to the Kafka client, whose"
                    + " default is true" : ""), autoCommit == null ? "(not set)" : autoCommit);
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
