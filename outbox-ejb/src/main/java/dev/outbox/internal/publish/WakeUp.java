package dev.outbox.internal.publish;

import dev.outbox.internal.record.OutboxCommitted;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;

/**
 * Relays the after-commit hint ({@link OutboxCommitted}) to this instance's publisher. A plain CDI observer
 * rather than an observer method on the publisher EJB: every business commit fires the event, and an EJB call
 * per commit cost the write path several per cent in the write-overhead benchmark (B1).
 */
@ApplicationScoped
public class WakeUp {

    private volatile Runnable publisher;

    /** Called by the publisher when it starts publishing. */
    void attach(Runnable hint) {
        publisher = hint;
    }

    void detach() {
        publisher = null;
    }

    void onCommitted(@Observes OutboxCommitted committed) {
        Runnable hint = publisher;
        if (hint != null) {
            hint.run();
        }
    }
}
