package dev.outbox.it.wildfly;

import dev.outbox.it.flow.DeliveryContract;
import dev.outbox.it.support.Settings;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.shrinkwrap.api.ShrinkWrap;
import org.jboss.shrinkwrap.api.spec.EnterpriseArchive;
import org.junit.jupiter.api.extension.ExtendWith;

import java.io.File;

/**
 * The example EAR, the very file the Liberty suites deploy, on WildFly with its embedded defaults (H2, Artemis):
 * the publisher sends through Artemis, the shipping MDB consumes behind the inbox, and an event sent again
 * after a lost confirm is absorbed ({@link DeliveryContract}).
 */
@ExtendWith(ArquillianExtension.class)
class WildFlyDeliveryIT extends DeliveryContract {

    @Deployment(testable = false)
    static EnterpriseArchive exampleEar() {
        return ShrinkWrap.createFromZipFile(EnterpriseArchive.class, new File(Settings.required("it.ear")));
    }
}
