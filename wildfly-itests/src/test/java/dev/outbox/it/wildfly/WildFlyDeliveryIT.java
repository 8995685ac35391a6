package dev.outbox.it.wildfly;

import dev.outbox.it.flow.DeliveryContract;
import dev.outbox.it.support.ExampleService;
import dev.outbox.it.support.ExampleService.Reply;
import dev.outbox.it.support.Settings;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.shrinkwrap.api.ShrinkWrap;
import org.jboss.shrinkwrap.api.spec.EnterpriseArchive;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.io.File;
import java.util.UUID;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The example EAR, the very file the Liberty suites deploy, on WildFly with its embedded defaults (H2, Artemis):
 * the publisher sends through Artemis, the shipping MDB consumes behind the inbox, and an event sent again
 * after a lost confirm is absorbed ({@link DeliveryContract}); the outbox's health checks are on WildFly's
 * health endpoints, and the admin API's roles hold.
 */
@ExtendWith(ArquillianExtension.class)
class WildFlyDeliveryIT extends DeliveryContract {

    /** WildFly serves MicroProfile Health on its management interface (9990 + the port offset of 100). */
    private final ExampleService management = new ExampleService("http://127.0.0.1:10090");

    @Deployment(testable = false)
    static EnterpriseArchive exampleEar() {
        return ShrinkWrap.createFromZipFile(EnterpriseArchive.class, new File(Settings.required("it.ear")));
    }

    @Test
    void theOutboxReadinessAndLivenessChecksAreReportedAndUp() {
        assertCheck(management.health("health/ready"), "outbox-backlog");
        assertCheck(management.health("health/live"), "outbox-publisher");
    }

    @Test
    void theAdminApiLetsEachRoleDoOnlyItsOwnActions() {
        assertEquals(401, service.admin(null, null, "GET", "parked", null).status(), "no login, no answer");
        Reply operator = service.admin("operator", "operator-password", "GET", "parked", null);
        assertEquals(200, operator.status(), operator.toString());
        // Reading an event's body is an operator's action (it may hold personal data): an approver is refused.
        Reply approver = service.admin("approver", "approver-password", "GET", "events/" + UUID.randomUUID(), null);
        assertEquals(403, approver.status(), approver.toString());
    }

    private static void assertCheck(Reply health, String name) {
        JsonObject check = health.body().getJsonArray("checks").stream().map(JsonValue::asJsonObject)
                .filter(c -> c.getString("name").equals(name)).findFirst()
                .orElseThrow(() -> new AssertionError("no check " + name + " in " + health));
        assertEquals("UP", check.getString("status"), health.toString());
    }
}
