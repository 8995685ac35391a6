package dev.outbox.internal.transport.jms;

import dev.outbox.spi.OutboundEvent;
import jakarta.jms.JMSException;
import jakarta.jms.Message;

import java.lang.reflect.Proxy;
import java.util.HashMap;
import java.util.Map;

/** The properties {@link JmsBatch#label} gives a message, read from a message that only records them. */
final class LabelledProperties {

    private LabelledProperties() {
    }

    /** The properties by name, with the CloudEvents attributes to add (none: the outbox's own only). */
    static Map<String, Object> of(OutboundEvent outbound, Map<String, String> cloudEvent) throws JMSException {
        Map<String, Object> properties = new HashMap<>();
        Message message = (Message) Proxy.newProxyInstance(Message.class.getClassLoader(), new Class<?>[] {Message.class},
                (proxy, method, args) -> {
                    if (method.getName().startsWith("set") && method.getName().endsWith("Property")) {
                        properties.put((String) args[0], args[1]);
                    }
                    return null;
                });
        JmsBatch.label(message, outbound, cloudEvent);
        return properties;
    }
}
