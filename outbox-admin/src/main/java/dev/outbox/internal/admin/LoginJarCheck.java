package dev.outbox.internal.admin;

import jakarta.servlet.ServletContextEvent;
import jakarta.servlet.ServletContextListener;
import jakarta.servlet.annotation.WebListener;
import org.eclipse.microprofile.config.ConfigProvider;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.logging.Logger;

/**
 * On Open Liberty the admin include (outbox-admin.xml) loads the login lockout from a jar the server must hold; when
 * it is missing, Liberty refuses every request of the server with a message that names neither the jar nor the
 * outbox. One line at start says which file is missing and what to do (issue 45). Elsewhere (WildFly, or Liberty
 * without the admin include) the setting is absent and nothing is checked.
 */
@WebListener
public class LoginJarCheck implements ServletContextListener {

    /** Set by outbox-admin.xml only: where the lockout's jar must be. */
    static final String LOGIN_JAR = "outbox.admin.login.jar";

    private static final Logger LOG = Logger.getLogger(LoginJarCheck.class.getName());

    @Override
    public void contextInitialized(ServletContextEvent event) {
        Optional<String> jar = ConfigProvider.getConfig().getOptionalValue(LOGIN_JAR, String.class);
        missing(jar).ifPresent(path -> AdminMessages.LOGIN_JAR_MISSING.log(LOG, () -> "outbox-admin.xml is included but "
                + path + " is missing (" + LOGIN_JAR + "): Liberty refuses every request of this server (CWWKS1203E)"
                + " until outbox-liberty-login.jar is put there, or outbox-admin.xml is left out"));
    }

    /** The configured path, when it is set and no file is there. */
    static Optional<String> missing(Optional<String> jar) {
        return jar.filter(path -> !path.isBlank()).map(Path::of).filter(path -> !Files.isRegularFile(path))
                .map(path -> path.normalize().toString()); // server.config.dir ends with a slash
    }
}
