package dev.outbox.it.architecture;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The code, tests, scripts and docs cite the project's numbered guarantees (R4.2); each one cited must be stated in
 * docs/guarantees.md, the project's own document, so a reader can always look it up.
 */
class GuaranteesCitedTest {

    private static final Path ROOT = Path.of("..");
    private static final Pattern CITED = Pattern.compile("\\bR(\\d+)\\.(\\d+)\\b");
    private static final Set<String> SOURCES = Set.of(".java", ".xml", ".md", ".cli", ".sh", ".sql", ".properties");

    @Test
    void everyCitedRequirementIsStatedInTheGuaranteesDocument() throws IOException {
        Set<String> stated = new TreeSet<>();
        Matcher heading = Pattern.compile("(?m)^### (R\\d+\\.\\d+) ").matcher(
                Files.readString(ROOT.resolve("docs/guarantees.md"), StandardCharsets.UTF_8));
        while (heading.find()) {
            stated.add(heading.group(1));
        }
        assertTrue(stated.size() > 40, "docs/guarantees.md states its requirements as '### R<n>.<m> title' headings");
        Set<String> unresolved = new TreeSet<>();
        int files = 0;
        try (Stream<Path> all = Files.walk(ROOT)) {
            for (Path file : all.filter(GuaranteesCitedTest::isSource).toList()) {
                files++;
                Matcher cited = CITED.matcher(Files.readString(file, StandardCharsets.UTF_8));
                while (cited.find()) {
                    String id = "R" + cited.group(1) + "." + cited.group(2);
                    if (!stated.contains(id)) {
                        unresolved.add(id + " in " + ROOT.relativize(file));
                    }
                }
            }
        }
        assertTrue(files > 100, "the repository's sources were read: " + files);
        assertEquals(Set.of(), unresolved, "requirements cited but not stated in docs/guarantees.md");
    }

    private static boolean isSource(Path file) {
        String path = file.toString().replace('\\', '/');
        String name = file.getFileName().toString();
        return Files.isRegularFile(file) && !path.contains("/target/") && !path.contains("/.git/")
                && SOURCES.stream().anyMatch(name::endsWith);
    }
}
