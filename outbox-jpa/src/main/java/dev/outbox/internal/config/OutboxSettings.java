package dev.outbox.internal.config;

import java.time.Duration;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;

/**
 * The write side's and the inbox's settings, read once at start (their declarations, defaults and meaning are in
 * {@link Settings}).
 */
public record OutboxSettings(int maxPayloadBytes, boolean createSchema, String dataSource, String dialect,
                             Duration inboxRetention, Duration inboxGapWindow, int brokerMaxDeliveries,
                             String transactionRegistry, Set<String> advisoryOrder,
                             Duration advisoryWait) {


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
                Settings.INBOX_ADVISORY_WAIT.millis(source));
    }
}
