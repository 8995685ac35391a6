package dev.outbox.internal.config;

import dev.outbox.PublishingProtocol;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.event.Startup;
import org.eclipse.microprofile.config.Config;
import org.eclipse.microprofile.config.ConfigProvider;

import java.util.Optional;
import java.util.function.Function;

/**
 * The public {@link PublishingProtocol} (R8.3): {@code outbox.publisher.mode} and its per-type variables, read on
 * every call; every one of them is checked at start-up, so a bad value stops the application naming the variable.
 */
@ApplicationScoped
public class PublisherModes implements PublishingProtocol {

    static final String SETTING = Settings.PUBLISHER_MODE.name();

    void check(@Observes Startup startup) {
        Config config = ConfigProvider.getConfig();
        for (String name : config.getPropertyNames()) {
            if (name.equals(SETTING) || name.startsWith(SETTING + ".")) {
                outboxPublishes(name.equals(SETTING) ? "-" : name.substring(SETTING.length() + 1),
                        n -> config.getOptionalValue(n, String.class));
            }
        }
    }

    @Override
    public boolean outboxPublishes(String eventType) {
        Config config = ConfigProvider.getConfig();
        return outboxPublishes(eventType, name -> config.getOptionalValue(name, String.class));
    }

    static boolean outboxPublishes(String eventType, Function<String, Optional<String>> settings) {
        return Settings.PUBLISHER_MODE.choice(settings, eventType).equals("publish");
    }
}
