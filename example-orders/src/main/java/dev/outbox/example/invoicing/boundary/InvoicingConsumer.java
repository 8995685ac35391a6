package dev.outbox.example.invoicing.boundary;

import dev.outbox.inbox.reactive.ReactiveInbox;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import org.eclipse.microprofile.reactive.messaging.Incoming;
import org.eclipse.microprofile.reactive.messaging.Message;

import java.util.concurrent.CompletionStage;

/**
 * The "invoicing" service, fed from Kafka through MicroProfile Reactive Messaging: channel {@code order-events}
 * (topic {@code outbox.Order}, configured by mp.messaging.incoming.order-events.* variables in server.xml). The inbox makes it
 * exactly-once per event and acknowledges the offset only after the invoice committed (R5.5).
 */
@ApplicationScoped
public class InvoicingConsumer {

    public static final String CONSUMER = "invoicing";

    @Inject
    ReactiveInbox inbox;

    @Inject
    Invoicing invoicing;

    @Incoming("order-events")
    public CompletionStage<Void> onOrderEvent(Message<String> message) {
        return inbox.process(CONSUMER, message, invoicing::apply);
    }
}
