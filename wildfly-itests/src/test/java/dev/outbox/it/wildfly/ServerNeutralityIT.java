package dev.outbox.it.wildfly;

import dev.outbox.it.support.Settings;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.ZipEntry;
import java.util.zip.ZipInputStream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The outbox's own modules in the EAR use only Jakarta EE, MicroProfile and Kafka APIs: no class of theirs names
 * an Open Liberty or WebSphere type, nor a WildFly or JBoss one (issue 9), so the same jars deploy on both.
 * Reads every class file of outbox-jpa, outbox-ejb, outbox-jms-bridge, outbox-admin and outbox-health inside the EAR the
 * suites deploy and looks for those packages in its constant pool.
 */
class ServerNeutralityIT {

    private static final List<String> OUTBOX_MODULES = List.of("lib/outbox-jpa.jar", "outbox-jpa.jar",
            "lib/outbox-jms-bridge.jar", "outbox-jms-bridge.jar", "lib/outbox-kafka.jar", "outbox-ejb.jar", "outbox-admin.war", "lib/outbox-health.jar");
    private static final List<String> SERVER_PACKAGES = List.of("com/ibm/", "io/openliberty/", "org/jboss/",
            "org/wildfly/");

    @Test
    void theOutboxModulesNameNoServerSpecificType() throws IOException {
        List<String> offenders = new ArrayList<>();
        int classes = 0;
        try (ZipInputStream ear = new ZipInputStream(Files.newInputStream(Path.of(Settings.required("it.ear"))))) {
            for (ZipEntry module; (module = ear.getNextEntry()) != null; ) {
                if (!OUTBOX_MODULES.contains(module.getName())) {
                    continue;
                }
                classes += scan(module.getName(), new ByteArrayInputStream(ear.readAllBytes()), offenders);
            }
        }
        assertTrue(classes > 50, "the outbox modules' classes were found in the EAR: " + classes);
        assertEquals(List.of(), offenders, "outbox classes that name a server-specific type");
    }

    private static int scan(String module, InputStream jar, List<String> offenders) throws IOException {
        int classes = 0;
        try (ZipInputStream entries = new ZipInputStream(jar)) {
            for (ZipEntry entry; (entry = entries.getNextEntry()) != null; ) {
                if (!entry.getName().endsWith(".class")) {
                    continue;
                }
                classes++;
                // Type names in a class file's constant pool are UTF-8 with '/' separators.
                String constants = new String(entries.readAllBytes(), StandardCharsets.ISO_8859_1);
                for (String server : SERVER_PACKAGES) {
                    if (constants.contains(server)) {
                        offenders.add(module + "!" + entry.getName() + " names " + server);
                    }
                }
            }
        }
        return classes;
    }
}
