package dev.outbox.internal.config;

import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Function;

/**
 * The write side's and the inbox's settings, read once at start (their declarations, defaults and meaning are in
 * {@link Settings}).
 */
public record OutboxSettings(int maxPayloadBytes, boolean createSchema, String dataSource, String dialect,
                             Duration inboxRetention, Duration inboxGapWindow, int brokerMaxDeliveries,
                             String transactionRegistry, Set<String> advisoryOrder,
                             Duration advisoryWait, Map<String, Set<String>> receives,
                             Duration schemaLockWait, Duration schemaLockBudget) {

    public OutboxSettings {
        receives = Map.copyOf(receives);
    }


    /** {@code outbox.inbox.receives}: consumer:EventType items, by consumer. */
    static Map<String, Set<String>> receives(Set<String> items) {
        Map<String, Set<String>> byConsumer = new TreeMap<>();
        for (String item : items) {
            int colon = item.indexOf(':');
            if (colon <= 0 || colon == item.length() - 1 || item.indexOf(':', colon + 1) >= 0) {
                throw new InvalidSettingException(Settings.INBOX_RECEIVES.name(),
                        "must list consumer:EventType items separated by commas; item '" + item + "' is not one",
                        String.join(",", items));
            }
            String type = item.substring(colon + 1).trim();
            if (!type.matches("[A-Za-z][A-Za-z0-9._-]{0,99}")) {
                throw new InvalidSettingException(Settings.INBOX_RECEIVES.name(), "names event types as the recorder"
                        + " accepts them (a letter, then letters, digits, '.', '_' or '-'); '" + type + "' in item '"
                        + item + "' is not one", String.join(",", items));
            }
            byConsumer.computeIfAbsent(item.substring(0, colon).trim(), consumer -> new TreeSet<>()).add(type);
        }
        Map<String, Set<String>> frozen = new TreeMap<>();
        byConsumer.forEach((consumer, types) -> frozen.put(consumer, Set.copyOf(types)));
        return frozen;
    }

    public static OutboxSettings read(Function<String, Optional<String>> source) {
        Duration gapWindow = Settings.INBOX_GAP_WINDOW.millis(source);
        int deliveries = Settings.INBOX_BROKER_MAX_DELIVERIES.integer(source);
        return new OutboxSettings(
                Settings.PAYLOAD_MAX_BYTES.integer(source),
                Settings.SCHEMA_CREATE.flag(source),
                Settings.DATASOURCE.text(source),
                Settings.DIALECT.choice(source),
                Duration.ofDays(Settings.INBOX_RETENTION_DAYS.integer(source)),
                gapWindow, deliveries,
                Settings.TRANSACTION_REGISTRY.text(source),
                Set.copyOf(Settings.INBOX_ADVISORY_ORDER.list(source)),
                Settings.INBOX_ADVISORY_WAIT.millis(source),
                receives(Settings.INBOX_RECEIVES.list(source)),
                Settings.SCHEMA_LOCK_WAIT.millis(source),
                Settings.SCHEMA_LOCK_BUDGET.duration(source));
    }
}
