package dev.outbox.internal.config;

/** The sections of the settings reference, in its order. */
public enum Section {
    WRITE_SIDE("Write side and database", "The recorder, the schema and the outbox's own SQL."),
    PUBLISHER("Publisher", "Claims, sends and confirms; shadow mode for a switch-over."),
    ORDERING("Ordering (R4.6)", "Per event type: strict types wait for every earlier version of their aggregate."),
    JMS("JMS", "The JMS transport (module outbox-jms-bridge)."),
    KAFKA("Kafka", "The Kafka transport and the Kafka inboxes (module outbox-kafka)."),
    INBOX("Inbox", "Marks, the version gate and their retention."),
    HEALTH_AND_METRICS("Health and metrics", "Readiness and the backlog gauges."),
    CLEANUP("Cleanup", "Deletion of delivered rows and expired inbox marks in small batches (R8.1)."),
    REPLAY("Replay", "The operators' replays through the admin API (R9.2, R9.4)."),
    TESTS_ONLY("Tests only", "Never set these in production.");

    public final String title;
    public final String summary;

    Section(String title, String summary) {
        this.title = title;
        this.summary = summary;
    }
}
