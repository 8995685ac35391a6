package dev.outbox.it.wildfly;

import dev.outbox.it.console.ConsoleFlows;
import dev.outbox.it.support.Settings;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.shrinkwrap.api.ShrinkWrap;
import org.jboss.shrinkwrap.api.spec.EnterpriseArchive;
import org.junit.jupiter.api.extension.ExtendWith;

import java.io.File;
import java.nio.file.Path;

/**
 * The console's flows ({@link ConsoleFlows}) on WildFly: the same page, behind Elytron's login and the roles of
 * WildFly's application users.
 */
@ExtendWith(ArquillianExtension.class)
class WildFlyConsoleIT extends ConsoleFlows {

    @Deployment(testable = false)
    static EnterpriseArchive exampleEar() {
        return ShrinkWrap.createFromZipFile(EnterpriseArchive.class, new File(Settings.required("it.ear")));
    }

    /** Not lead: WildFlyDeliveryIT locks lead's account on purpose, and Elytron's lock outlasts this run's tests. */
    @Override
    protected String requesterWithBothRoles() {
        return "shift-lead";
    }

    @Override
    protected Path screenshots() {
        return Path.of("target", "console", "wildfly");
    }
}
