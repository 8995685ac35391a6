package dev.outbox.it.architecture;

import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

import javax.xml.parsers.DocumentBuilderFactory;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Issue 45 item 1: outbox-bom manages exactly the library's modules, at the build's version, with their packaging,
 * and inherits nothing, so a user's build that imports it gets no Kafka, test or benchmark versions from ours.
 */
class BomTest {

    private static final Path ROOT = Path.of("..");
    /** What a user's EAR is built from; the example, the server configurations and the tests are not. */
    private static final List<String> LIBRARY = List.of("outbox-jpa", "outbox-health", "outbox-ejb",
            "outbox-jms-bridge", "outbox-kafka", "outbox-admin", "outbox-liberty-login");
    /** outbox-server-config's zips, by classifier. */
    private static final List<String> SERVER_CONFIG = List.of("liberty", "wildfly");

    @Test
    void theBomManagesEveryLibraryModuleAtTheBuildsVersionAndNothingElse() throws Exception {
        Document bom = read(ROOT.resolve("outbox-bom/pom.xml"));
        Element project = bom.getDocumentElement();
        assertTrue(project.getElementsByTagName("parent").getLength() == 0,
                "the BOM inherits nothing: a parent would bring the build's whole dependency management along");
        String version = text(read(ROOT.resolve("pom.xml")).getDocumentElement(), "version");
        assertEquals(version, text(project, "version"), "the BOM's version is the build's");

        Map<String, String> managed = new TreeMap<>();
        NodeList dependencies = project.getElementsByTagName("dependency");
        for (int i = 0; i < dependencies.getLength(); i++) {
            Element dependency = (Element) dependencies.item(i);
            assertEquals("dev.outbox", text(dependency, "groupId"), "only the outbox's own artifacts");
            assertEquals("${project.version}", text(dependency, "version"), text(dependency, "artifactId"));
            String type = text(dependency, "type");
            String classifier = text(dependency, "classifier");
            managed.put(text(dependency, "artifactId") + (classifier == null ? "" : ":" + classifier),
                    type == null ? "jar" : type);
        }
        Map<String, String> modules = new TreeMap<>();
        for (String module : LIBRARY) {
            String packaging = text(read(ROOT.resolve(module).resolve("pom.xml")).getDocumentElement(), "packaging");
            modules.put(module, packaging == null ? "jar" : packaging);
        }
        // the server configuration (issue 45 item 2): a pom module whose artifacts are its two zips
        SERVER_CONFIG.forEach(classifier -> modules.put("outbox-server-config:" + classifier, "zip"));
        assertEquals(modules, managed, "outbox-bom/pom.xml manages each library module once, with its packaging as type");
        List<String> unlisted = new ArrayList<>();
        String aggregator = java.nio.file.Files.readString(ROOT.resolve("pom.xml"));
        for (String module : java.util.stream.Stream.concat(LIBRARY.stream(), java.util.stream.Stream.of(
                "outbox-server-config")).toList()) {
            if (!aggregator.contains("<module>" + module + "</module>")) {
                unlisted.add(module);
            }
        }
        assertTrue(unlisted.isEmpty(), "library modules this test lists that the build no longer has: " + unlisted);
    }

    static Document read(Path pom) throws Exception {
        return DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(pom.toFile());
    }

    /** The text of an element's direct child, or null. */
    static String text(Element parent, String child) {
        for (var node = parent.getFirstChild(); node != null; node = node.getNextSibling()) {
            if (node instanceof Element element && element.getTagName().equals(child)) {
                return element.getTextContent().trim();
            }
        }
        return null;
    }
}
