package dev.outbox.internal.transport.jms;

import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;
import java.util.logging.Logger;

/**
 * R4.7: whether the publisher may send through its connection factory, which must keep an acknowledged persistent
 * message through a crash of the engine ({@link AssuredPersistence}). A factory bound at the publisher's start is
 * checked then, and a refusal stops the application; one bound only later is checked before the first send that
 * finds it, and nothing is sent through it while it is refused (the events wait as transient failures).
 */
final class PersistenceCheck {

    private static final Logger LOG = Logger.getLogger(PersistenceCheck.class.getName());

    private final String jndiName;
    /** The factory bound at the name, or null while none is. */
    private final Function<String, Object> lookup;
    private final boolean required;
    private volatile boolean passed;
    private final AtomicBoolean refusalSaid = new AtomicBoolean();

    PersistenceCheck(String jndiName, Function<String, Object> lookup, boolean required) {
        this.jndiName = jndiName;
        this.lookup = lookup;
        this.required = required;
    }

    /** @throws IllegalStateException naming the factory and the setting when it may lose acknowledged messages */
    void atStart() {
        Object factory = lookup.apply(jndiName);
        if (factory != null) {
            AssuredPersistence.require(jndiName, factory, required);
            passed = true;
        }
    }

    /** Whether a batch may go through the factory now; a factory not bound yet is left to the send to name. */
    boolean allowsSend() {
        if (passed) {
            return true;
        }
        Object factory = lookup.apply(jndiName);
        if (factory == null) {
            return true;
        }
        try {
            AssuredPersistence.require(jndiName, factory, required);
            passed = true;
            return true;
        } catch (IllegalStateException refused) {
            if (refusalSaid.compareAndSet(false, true)) { // once, whichever worker finds it first
                JmsMessages.PERSISTENCE_REFUSED.log(LOG, () -> refused.getMessage() + "; nothing is sent through it"
                        + " until it is fixed (the events wait)");
            }
            return false;
        }
    }
}
