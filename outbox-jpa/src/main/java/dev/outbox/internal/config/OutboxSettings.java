package dev.outbox.internal.config;

import java.time.Duration;
import java.util.Optional;
import java.util.function.Function;

/**
 * The write side's and the inbox's settings, read once at start (their declarations, defaults and meaning are in
 * {@link Settings}).
 */
public record OutboxSettings(int maxPayloadBytes, boolean createSchema, String dataSource, String dialect,
                             Duration inboxRetention, Duration inboxGapWindow, int brokerMaxDeliveries,
                             String transactionRegistry) {


    public static OutboxSettings read(Function<String, Optional<String>> source) {
        Duration gapWindow = Settings.INBOX_GAP_WINDOW.millis(source);
        int deliveries = Settings.INBOX_BROKER_MAX_DELIVERIES.integer(source);
        Duration budget = Settings.HOLD_PAUSE.multipliedBy(deliveries - 1L);
        if (gapWindow.compareTo(budget) >= 0) {
            throw new InvalidSettingException(Settings.INBOX_GAP_WINDOW.name(), "must be shorter than the broker's"
                    + " redelivery budget, (" + Settings.INBOX_BROKER_MAX_DELIVERIES + " " + deliveries + " - 1) x "
                    + Settings.HOLD_PAUSE.toMillis() + " ms = " + budget.toMillis() + " ms, or a held message is given up by"
                    + " the broker before the inbox applies it", Long.toString(gapWindow.toMillis()));
        }
        return new OutboxSettings(
                Settings.PAYLOAD_MAX_BYTES.integer(source),
                Settings.SCHEMA_CREATE.flag(source),
                Settings.DATASOURCE.text(source),
                Settings.DIALECT.choice(source),
                Duration.ofDays(Settings.INBOX_RETENTION_DAYS.integer(source)),
                gapWindow, deliveries,
                Settings.TRANSACTION_REGISTRY.text(source));
    }
}
