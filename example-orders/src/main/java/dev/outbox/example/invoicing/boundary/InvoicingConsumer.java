package dev.outbox.example.invoicing.boundary;

import dev.outbox.kafka.KafkaInbox;
import jakarta.annotation.Priority;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.event.Startup;
import jakarta.inject.Inject;
import jakarta.interceptor.Interceptor;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * The "invoicing" service, fed from Kafka through the outbox's own poll loop ({@link KafkaInbox}), which rides
 * out broker outages: topic {@code example.invoicing.topic} (default {@code outbox.Order}) as consumer group
 * {@code example.invoicing.group} (default {@code invoicing}). The inbox makes it exactly-once per event and
 * the offset is committed only after the invoice committed (R5.5). It reads only with Kafka switched on
 * ({@code example.kafka.enabled=true}): without a broker its consumer would retry and warn forever.
 */
@ApplicationScoped
public class InvoicingConsumer {

    public static final String CONSUMER = "invoicing";

    @Inject
    KafkaInbox kafkaInbox;

    @Inject
    Invoicing invoicing;

    @Inject
    @ConfigProperty(name = "example.invoicing.topic", defaultValue = "outbox.Order")
    String topic;

    @Inject
    @ConfigProperty(name = "example.invoicing.group", defaultValue = "invoicing")
    String group;

    @Inject
    @ConfigProperty(name = "example.kafka.enabled", defaultValue = "false")
    boolean kafkaEnabled;

    /** After the example's tables exist (ExampleSchema observes Startup at the default priority). */
    void start(@Observes @Priority(Interceptor.Priority.APPLICATION + 1000) Startup startup) {
        if (kafkaEnabled) {
            kafkaInbox.subscribe(CONSUMER, group, topic, invoicing::apply);
        }
    }
}
