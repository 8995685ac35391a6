package dev.outbox.it.console;

import dev.outbox.it.support.ServerLogOnFailure;
import dev.outbox.it.support.Settings;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.shrinkwrap.api.ShrinkWrap;
import org.jboss.shrinkwrap.api.spec.EnterpriseArchive;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.api.extension.ExtendWith;

import java.io.File;
import java.nio.file.Path;

/** The console's flows ({@link ConsoleFlows}) on Open Liberty, in the H2 run: the page is the same on every database. */
@ExtendWith({ArquillianExtension.class, ServerLogOnFailure.class})
@EnabledIfSystemProperty(named = "it.db", matches = "h2")
class ConsoleIT extends ConsoleFlows {

    @Deployment(testable = false)
    static EnterpriseArchive exampleEar() {
        return ShrinkWrap.createFromZipFile(EnterpriseArchive.class, new File(Settings.required("it.ear")));
    }

    @Override
    protected String requesterWithBothRoles() {
        return "lead";
    }

    @Override
    protected Path screenshots() {
        return Path.of("target", "console", "liberty");
    }
}
