package dev.outbox.it.wildfly;

import dev.outbox.it.flow.ReactiveInboxParking;
import dev.outbox.it.support.OutboxDatabase;
import dev.outbox.it.support.Settings;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.shrinkwrap.api.ShrinkWrap;
import org.jboss.shrinkwrap.api.spec.EnterpriseArchive;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.io.File;

/**
 * Issue 16 item 8 on WildFly: SmallRye's smallrye-kafka connector hands the loyalty consumer an
 * IncomingKafkaRecord rather than a ConsumerRecord; a parked record must keep its topic, key and headers all the
 * same. The channel reads a topic of its own here (arquillian.xml), so no other consumer sees these records.
 */
@ExtendWith(ArquillianExtension.class)
class WildFlyReactiveInboxIT {

    @Deployment(testable = false)
    static EnterpriseArchive exampleEar() {
        return ShrinkWrap.createFromZipFile(EnterpriseArchive.class, new File(Settings.required("it.ear")));
    }

    @Test
    void theReactiveMessagingConsumerParksARecordWithItsOwnKeyAndHeaders() throws Exception {
        ReactiveInboxParking.parksWithTheRecordsOwnKeyAndHeaders(Settings.required("it.kafka.bootstrap"),
                "wf-rm.Order", OutboxDatabase.fromSystemProperties());
    }
}
