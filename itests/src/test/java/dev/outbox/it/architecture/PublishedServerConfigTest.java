package dev.outbox.it.architecture;

import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;
import org.w3c.dom.NodeList;

import javax.xml.parsers.DocumentBuilderFactory;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Issue 45 item 2: the server configuration a service includes is published (outbox-server-config's zips), holds
 * exactly the files the suites' servers run on, and is split by concern: each Liberty include turns on only the
 * features of its own part, so a JMS-only service gets no application security, no REST and no admin login jar.
 */
class PublishedServerConfigTest {

    private static final Path ROOT = Path.of("..");
    private static final Path LIBERTY = ROOT.resolve("liberty-config/src/main/liberty/config");
    private static final Path WILDFLY = ROOT.resolve("wildfly-config/src/main/cli");

    /** Each include and the only features it may turn on. */
    private static final Map<String, Set<String>> FEATURES = Map.of(
            "outbox.xml", Set.of("cdi-4.0", "persistence-3.1", "enterpriseBeansLite-4.0", "mpConfig-3.1",
                    "concurrent-3.0", "mpHealth-4.0", "mpMetrics-5.1"),
            "outbox-jms.xml", Set.of("messaging-3.1"),
            "outbox-kafka.xml", Set.of(),
            "outbox-admin.xml", Set.of("restfulWS-3.1", "servlet-6.0", "jsonp-2.1", "appSecurity-5.0"));

    @Test
    void theLibertyZipHoldsExactlyTheIncludesTheSuitesServersRunOn() throws Exception {
        Map<String, byte[]> zipped = entries(zip("liberty"));
        assertEquals(new TreeSet<>(FEATURES.keySet()), zipped.keySet(), "the Liberty zip's files, flat at its root");
        for (Map.Entry<String, byte[]> entry : zipped.entrySet()) {
            assertArrayEquals(Files.readAllBytes(LIBERTY.resolve(entry.getKey())), entry.getValue(),
                    entry.getKey() + " in the zip differs from liberty-config's: rebuild outbox-server-config");
        }
    }

    @Test
    void theWildFlyZipHoldsTheOutboxScriptsOnePerConcern() throws Exception {
        Map<String, byte[]> zipped = entries(zip("wildfly"));
        assertEquals(new TreeSet<>(Set.of("outbox.cli", "outbox-jms.cli", "outbox-kafka.cli", "outbox-admin.cli")),
                zipped.keySet(), "the WildFly zip's files, flat at its root");
        for (Map.Entry<String, byte[]> entry : zipped.entrySet()) {
            assertArrayEquals(Files.readAllBytes(WILDFLY.resolve(entry.getKey())), entry.getValue(),
                    entry.getKey() + " in the zip differs from wildfly-config's: rebuild outbox-server-config");
        }
    }

    /** The WildFly counterpart of the features check: a JMS-only server gets no Reactive Messaging subsystem. */
    @Test
    void eachWildFlyScriptAddsOnlyTheSubsystemsOfItsOwnConcern() throws Exception {
        Map<String, Set<String>> subsystems = Map.of(
                "outbox.cli", Set.of("microprofile-health-smallrye", "micrometer", "transactions",
                        "microprofile-config-smallrye", "metrics"),
                "outbox-jms.cli", Set.of("messaging-activemq", "microprofile-config-smallrye"),
                "outbox-kafka.cli", Set.of("microprofile-reactive-streams-operators-smallrye",
                        "microprofile-reactive-messaging-smallrye", "microprofile-config-smallrye"),
                "outbox-admin.cli", Set.of("microprofile-config-smallrye"));
        for (Map.Entry<String, Set<String>> script : subsystems.entrySet()) {
            java.util.regex.Matcher touched = java.util.regex.Pattern.compile("^/subsystem=([\\w-]+)",
                    java.util.regex.Pattern.MULTILINE).matcher(Files.readString(WILDFLY.resolve(script.getKey())));
            Set<String> found = new TreeSet<>();
            while (touched.find()) {
                found.add(touched.group(1));
            }
            assertEquals(new TreeSet<>(script.getValue()), found, script.getKey() + "'s subsystems");
        }
    }

    @Test
    void eachLibertyIncludeTurnsOnOnlyTheFeaturesOfItsOwnConcern() throws Exception {
        for (Map.Entry<String, Set<String>> include : FEATURES.entrySet()) {
            Document xml = parse(Files.readAllBytes(LIBERTY.resolve(include.getKey())));
            Set<String> features = new TreeSet<>();
            NodeList nodes = xml.getElementsByTagName("feature");
            for (int i = 0; i < nodes.getLength(); i++) {
                features.add(nodes.item(i).getTextContent().trim());
            }
            assertEquals(new TreeSet<>(include.getValue()), features, include.getKey() + "'s features");
        }
    }

    @Test
    void onlyTheAdminIncludeNeedsTheLoginJar() throws Exception {
        for (String include : FEATURES.keySet()) {
            Document xml = parse(Files.readAllBytes(LIBERTY.resolve(include)));
            boolean loads = xml.getElementsByTagName("library").getLength() > 0
                    || xml.getElementsByTagName("trustAssociation").getLength() > 0;
            if (include.equals("outbox-admin.xml")) {
                assertTrue(loads, "the admin include loads the login lockout");
            } else {
                assertFalse(loads, include + " must never need outbox-liberty-login.jar");
            }
        }
    }

    /** The zip the build attached to outbox-server-config, by classifier. */
    private static Path zip(String classifier) throws Exception {
        String version = BomTest.text(BomTest.read(ROOT.resolve("pom.xml")).getDocumentElement(), "version");
        Path zip = ROOT.resolve("outbox-server-config/target/outbox-server-config-" + version + "-" + classifier + ".zip");
        assertTrue(Files.isRegularFile(zip), "outbox-server-config was packaged before the tests: " + zip);
        return zip;
    }

    private static Map<String, byte[]> entries(Path zip) throws IOException {
        Map<String, byte[]> entries = new TreeMap<>();
        try (ZipFile file = new ZipFile(zip.toFile())) {
            for (ZipEntry entry : java.util.Collections.list(file.entries())) {
                entries.put(entry.getName(), file.getInputStream(entry).readAllBytes());
            }
        }
        return entries;
    }

    private static Document parse(byte[] xml) throws Exception {
        return DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(new ByteArrayInputStream(xml));
    }
}
