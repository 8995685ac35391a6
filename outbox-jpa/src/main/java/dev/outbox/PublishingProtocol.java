package dev.outbox;

import dev.outbox.internal.config.Settings;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.event.Startup;
import org.eclipse.microprofile.config.Config;
import org.eclipse.microprofile.config.ConfigProvider;

import java.util.Optional;
import java.util.function.Function;

/**
 * Which protocol publishes an event type during a migration from send-in-transaction (R8.3):
 * {@code outbox.publisher.mode} ({@code publish}, the default, or {@code shadow}) for every type, or
 * {@code outbox.publisher.mode.<EventType>} for one. In shadow mode the outbox still records every event, and
 * the publisher claims it and reports what it would send, but sends nothing: the application's old path sends
 * it. The mode is stamped on each event when it is recorded, so one command's event is sent by one path only,
 * even when the flag changes while it waits. The old path asks {@link #outboxPublishes} with the same flag:
 *
 * <pre>{@code
 * outbox.record(event);                                   // always
 * if (!protocol.outboxPublishes(event.eventType())) {
 *     legacySender.send(...);                             // the old path, until this type switches over
 * }
 * }</pre>
 * Read on every call, so a configuration change switches a type over without a restart.
 */
@ApplicationScoped
public class PublishingProtocol {

    static final String SETTING = Settings.PUBLISHER_MODE.name();

    /** A wrong value stops the application at start, naming the variable, not at the first command. */
    void check(@Observes Startup startup) {
        Config config = ConfigProvider.getConfig();
        for (String name : config.getPropertyNames()) {
            if (name.equals(SETTING) || name.startsWith(SETTING + ".")) {
                outboxPublishes(name.equals(SETTING) ? "-" : name.substring(SETTING.length() + 1),
                        n -> config.getOptionalValue(n, String.class));
            }
        }
    }

    public boolean outboxPublishes(String eventType) {
        Config config = ConfigProvider.getConfig();
        return outboxPublishes(eventType, name -> config.getOptionalValue(name, String.class));
    }

    static boolean outboxPublishes(String eventType, Function<String, Optional<String>> settings) {
        return Settings.PUBLISHER_MODE.choice(settings, eventType).equals("publish");
    }
}
