package dev.outbox.internal.transport.jms;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.Optional;
import java.util.logging.Logger;

/**
 * R4.7: a persistent message the broker acknowledged survives the broker's crash, or the row it confirmed is an event
 * lost. Open Liberty's embedded messaging engine decides what "persistent" means by its connection factory's
 * {@code persistentMapping}, and only {@code AssuredPersistent} never discards an acknowledged message: the default,
 * {@code ReliablePersistent}, may drop it when the engine fails, which the kill -9 soak caught (an acknowledged
 * OrderPaid that never arrived). So the publisher refuses to start on another mapping, naming the setting. A factory
 * that has no such mapping (WildFly's Artemis, whose journal syncs persistent messages by default; another provider)
 * cannot be told apart by its factory: that is said once, with what to keep.
 */
final class AssuredPersistence {

    private static final Logger LOG = Logger.getLogger(AssuredPersistence.class.getName());

    static final String ASSURED = "AssuredPersistent";

    private AssuredPersistence() {
    }

    /**
     * The persistent mapping a connection factory reports ({@code getPersistentMapping}, the public interface of
     * Open Liberty's factories, read by reflection so this jar needs no server API); empty where it has none.
     */
    static Optional<String> mappingOf(Object factory) {
        Method getter;
        try {
            getter = factory.getClass().getMethod("getPersistentMapping");
        } catch (NoSuchMethodException e) {
            return Optional.empty();
        }
        try {
            Object mapping = getter.invoke(factory);
            return Optional.of(mapping == null ? "(unset)" : mapping.toString());
        } catch (IllegalAccessException | InvocationTargetException | RuntimeException e) {
            return Optional.empty();
        }
    }

    /**
     * Refuses a factory whose persistent messages the engine may discard after acknowledging them, unless
     * {@code outbox.jms.require-assured-persistence} is false (a measurement, never production: then it warns).
     *
     * @throws IllegalStateException naming the factory, its mapping and the server.xml setting to change
     */
    static void require(String jndiName, Object factory, boolean required) {
        Optional<String> mapping = mappingOf(factory);
        if (mapping.isEmpty()) {
            JmsMessages.PERSISTENCE_UNKNOWN.log(LOG, () -> "the JMS connection factory " + jndiName + " (outbox"
                    + ".jms.connection-factory) does not say how it keeps persistent messages; on WildFly keep the"
                    + " messaging subsystem's journal-sync-transactional and journal-sync-non-transactional true (the"
                    + " default), elsewhere make sure an acknowledged persistent message survives the broker's crash");
            return;
        }
        if (ASSURED.equals(mapping.get())) {
            return;
        }
        String problem = "the JMS connection factory " + jndiName + " (outbox.jms.connection-factory) maps persistent"
                + " messages to " + mapping.get() + ", which the messaging engine may discard after acknowledging"
                + " them when it fails: a delivered event would be lost (R4.7). Set <properties.wasJms"
                + " persistentMapping=\"" + ASSURED + "\"/> in its <jmsConnectionFactory> in server.xml (for"
                + " java:comp/DefaultJMSConnectionFactory, the one with id=\"DefaultJMSConnectionFactory\")";
        if (required) {
            throw new IllegalStateException(problem);
        }
        JmsMessages.PERSISTENCE_NOT_ASSURED.log(LOG, () -> problem + "; allowed only because"
                + " outbox.jms.require-assured-persistence=false (a measurement, never production)");
    }
}
