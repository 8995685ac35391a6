package dev.outbox.example.receipts.boundary;

import dev.outbox.InboxedEvent;
import dev.outbox.kafka.KafkaInbox;
import jakarta.annotation.Priority;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.event.Startup;
import jakarta.inject.Inject;
import jakarta.interceptor.Interceptor;
import org.eclipse.microprofile.config.inject.ConfigProperty;

import java.util.logging.Logger;

/**
 * The "receipts" service: one receipt per payment or refund, here a log line. It receives only those types and says
 * so in server.xml ({@code outbox.inbox.receives=receipts:OrderPaid, receipts:OrderRefunded}; the example records no
 * refund yet), so the inbox holds a payment only for the order's earlier payments and refunds, never for its other
 * events (R5.7): a late OrderPlaced delays the invoice, not the receipt. The other types on the topic are passed
 * over, unmarked. Off unless {@code example.receipts.enabled} and {@code example.kafka.enabled} are both on.
 */
@ApplicationScoped
public class ReceiptsConsumer {

    public static final String CONSUMER = "receipts";
    private static final Logger LOG = Logger.getLogger(ReceiptsConsumer.class.getName());

    @Inject
    KafkaInbox kafkaInbox;

    @Inject
    @ConfigProperty(name = "example.receipts.topic", defaultValue = "outbox.Order")
    String topic;

    @Inject
    @ConfigProperty(name = "example.receipts.enabled", defaultValue = "false")
    boolean enabled;

    @Inject
    @ConfigProperty(name = "example.kafka.enabled", defaultValue = "false")
    boolean kafkaEnabled;

    void start(@Observes @Priority(Interceptor.Priority.APPLICATION + 1000) Startup startup) {
        if (enabled && kafkaEnabled) {
            kafkaInbox.subscribe(CONSUMER, CONSUMER, topic, this::sendReceipt);
        }
    }

    void sendReceipt(InboxedEvent paid) {
        // R6.3: ids and versions only, never the payment's body
        LOG.info(() -> "receipts: receipt sent for " + paid.describe());
    }
}
