package dev.outbox.internal.config;

import java.time.Duration;
import java.util.Optional;
import java.util.function.Function;

/**
 * The write side's settings. Each is a server.xml {@code <variable>} read through MicroProfile Config; the
 * README's settings table lists them with their defaults.
 *
 * @param maxPayloadBytes {@value #PAYLOAD_MAX_BYTES}: the largest JSON payload, in UTF-8 bytes, an event may
 *                        carry; larger bodies are stored by reference (R3.5). Default 65536, at most 1000000.
 * @param createSchema    {@value #SCHEMA_CREATE}: run the dialect's schema scripts at start when
 *                        {@code outbox_event} is missing. Default false: production schemas are migrated by
 *                        the user's own tool from the same scripts.
 * @param dataSource      {@value #DATASOURCE}: the JNDI name of the datasource the schema scripts run on;
 *                        must be the one the business tables live in. Default {@code java:comp/DefaultDataSource}.
 * @param dialect         {@value #DIALECT}: {@code auto} (from the JDBC driver's product name), {@code h2} or
 *                        {@code postgresql}. Default auto.
 * @param inboxRetention  {@value #INBOX_RETENTION_DAYS}: how long a {@code processed_event} row is kept after
 *                        processing, in days: at least the broker's longest redelivery window plus the
 *                        disaster-recovery window (R5.6, R9.5). Default 30.
 * @param inboxGapWindow  {@value #INBOX_GAP_WINDOW_MS}: how long the inbox holds an event whose earlier
 *                        versions have not arrived, before it reports the gap and applies it anyway (R5.7).
 *                        Default 2000 ms; it must end before the broker's redelivery budget does (below).
 * @param brokerMaxDeliveries {@value #INBOX_BROKER_MAX_DELIVERIES}: how many times the broker delivers a message
 *                        before it gives it up (Liberty's queue {@code maxRedeliveryCount}, Artemis's
 *                        {@code max-delivery-attempts}); default 10, as both servers are configured. Each held
 *                        delivery pauses {@code Inbox.HOLD_PAUSE} (250 ms) and fails, so start-up refuses a gap
 *                        window of (deliveries - 1) x 250 ms or more: the held message would reach the broker's
 *                        dead-letter destination instead of being applied.
 * @param transactionRegistry {@value #TRANSACTION_REGISTRY}: the JNDI name of the server's
 *                        TransactionSynchronizationRegistry. Default {@code java:comp/TransactionSynchronizationRegistry};
 *                        on WildFly its global name {@code java:jboss/TransactionSynchronizationRegistry}, which
 *                        threads without {@code java:comp} (the Reactive Messaging connector's) can look up too.
 */
public record OutboxSettings(int maxPayloadBytes, boolean createSchema, String dataSource, String dialect,
                             Duration inboxRetention, Duration inboxGapWindow, int brokerMaxDeliveries,
                             String transactionRegistry) {

    public static final String PAYLOAD_MAX_BYTES = "outbox.payload.max-bytes";
    public static final String SCHEMA_CREATE = "outbox.schema.create";
    public static final String DATASOURCE = "outbox.datasource";
    public static final String DIALECT = "outbox.dialect";
    public static final String INBOX_RETENTION_DAYS = "outbox.inbox.retention-days";
    public static final String INBOX_GAP_WINDOW_MS = "outbox.inbox.gap-window-ms";
    public static final String INBOX_BROKER_MAX_DELIVERIES = "outbox.inbox.broker-max-deliveries";
    public static final String TRANSACTION_REGISTRY = "outbox.transaction-registry";
    /** How long one held delivery waits before it fails for redelivery ({@code Inbox.HOLD_PAUSE}). */
    public static final Duration HOLD_PAUSE = Duration.ofMillis(250);

    /** The H2 column limit; bodies above it belong in an immutable resource anyway (R3.5). */
    public static final int PAYLOAD_HARD_LIMIT = 1_000_000;

    public static OutboxSettings read(Function<String, Optional<String>> source) {
        SettingReader reader = new SettingReader(source);
        Duration gapWindow = Duration.ofMillis(reader.integer(INBOX_GAP_WINDOW_MS, 2000, 0, 600_000));
        int deliveries = reader.integer(INBOX_BROKER_MAX_DELIVERIES, 10, 1, 100_000);
        Duration budget = HOLD_PAUSE.multipliedBy(deliveries - 1L);
        if (gapWindow.compareTo(budget) >= 0) {
            throw new InvalidSettingException(INBOX_GAP_WINDOW_MS, "must be shorter than the broker's redelivery budget,"
                    + " (" + INBOX_BROKER_MAX_DELIVERIES + " " + deliveries + " - 1) x " + HOLD_PAUSE.toMillis()
                    + " ms = " + budget.toMillis() + " ms, or a held message is given up by the broker before the"
                    + " inbox applies it", Long.toString(gapWindow.toMillis()));
        }
        return new OutboxSettings(
                reader.integer(PAYLOAD_MAX_BYTES, 65_536, 1, PAYLOAD_HARD_LIMIT),
                reader.flag(SCHEMA_CREATE, false),
                reader.text(DATASOURCE, "java:comp/DefaultDataSource"),
                reader.oneOf(DIALECT, "auto", "auto", "h2", "postgresql"),
                Duration.ofDays(reader.integer(INBOX_RETENTION_DAYS, 30, 1, 36_500)),
                gapWindow, deliveries,
                reader.text(TRANSACTION_REGISTRY, "java:comp/TransactionSynchronizationRegistry"));
    }
}
