package dev.outbox.internal.config;

import dev.outbox.internal.logging.CoreMessages;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.event.Startup;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;
import org.eclipse.microprofile.config.Config;
import org.eclipse.microprofile.config.ConfigProvider;

import java.util.logging.Logger;

/** Makes {@link OutboxSettings} injectable, read once from MicroProfile Config, and checks them at start. */
@ApplicationScoped
public class SettingsSource {

    private static final Logger LOG = Logger.getLogger(SettingsSource.class.getName());

    @Produces
    @Singleton
    OutboxSettings settings() {
        Config config = ConfigProvider.getConfig();
        return OutboxSettings.read(name -> config.getOptionalValue(name, String.class));
    }

    /** A bad value stops the application here, naming the variable, instead of failing the first command. */
    void checkAtStart(@Observes Startup startup, OutboxSettings settings) {
        CoreMessages.SETTINGS.log(LOG, () -> "outbox settings: " + settings);
    }
}
