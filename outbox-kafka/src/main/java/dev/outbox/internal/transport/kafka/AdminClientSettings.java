package dev.outbox.internal.transport.kafka;

import org.apache.kafka.clients.admin.AdminClientConfig;

import java.util.Map;
import java.util.TreeMap;

/**
 * The settings of an admin client that reads the cluster a producer or consumer talks to: that client's settings
 * an admin client knows (security: SASL, TLS; timeouts), none it does not (serializers, {@code acks},
 * {@code auto.offset.reset}), and its bootstrap servers. Used by the topic durability check and the consumer lag
 * reading, so both reach a secured cluster the way the client they watch does.
 */
public final class AdminClientSettings {

    private AdminClientSettings() {
    }

    /** A new, mutable map: the caller adds its client id and timeouts. */
    public static Map<String, Object> of(Map<String, ?> clientSettings, String bootstrapServers) {
        Map<String, Object> admin = new TreeMap<>();
        clientSettings.forEach((name, value) -> {
            if (AdminClientConfig.configNames().contains(name)) {
                admin.put(name, value);
            }
        });
        admin.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        return admin;
    }
}
