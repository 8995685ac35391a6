package dev.outbox.it.architecture;

import dev.outbox.OutboxHeaders;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Issue 45 item 5: every snippet of docs/getting-started.md is compiled or run by a test. Each code block names the
 * file it is taken from, and that file is built and run elsewhere (the archetype's generated project, which the
 * archetype's integration test builds, starts and tests; the example's server configurations, which the suites run):
 * here each block must still be in its file, line by line ("..." leaves lines out). The archetype:generate command
 * must generate exactly the project the archetype's test generates, and the message contract's table must name every
 * property of {@link OutboxHeaders}.
 */
class GettingStartedGuideTest {

    private static final Path ROOT = Path.of("..");
    private static final Path GUIDE = ROOT.resolve("docs/getting-started.md");
    private static final Path ARCHETYPE = ROOT.resolve("outbox-archetype");
    private static final String TEMPLATES = "outbox-archetype/src/main/resources/archetype-resources/";
    private static final Path README = ROOT.resolve("README.md");
    /** A fenced block, indented or not (in a list item), with the marker before it. */
    private static final Pattern BLOCK = Pattern.compile(
            "(?m)^ *(?:<!-- (from|generate): (\\S+) -->\\n *)?```\\w*\\n(.*?)^ *```$", Pattern.DOTALL);

    record Snippet(String kind, String source, String text) {
    }

    /** The README's adoption steps, "Use it in your EAR", are held to the same rule as the guide. */
    @Test
    void everySnippetOfTheReadmesAdoptionStepsIsStillInItsFile() throws IOException {
        String readme = Files.readString(README);
        String steps = readme.substring(readme.indexOf("## Use it in your EAR"), readme.indexOf("## Modules"));
        everyBlockIsSeenMarkedAndHoldsCode(steps);
        List<Snippet> snippets = snippets(steps);
        assertEquals(List.of(), stale(snippets), "snippets of the README's adoption steps that their files no longer"
                + " hold, or without <!-- from: <file> -->");
        assertTrue(snippets.size() >= 4, "the README's snippets were found: " + snippets.size());
    }

    @Test
    void everySnippetIsStillInTheFileItIsTakenFrom() throws IOException {
        List<Snippet> checked = snippets().stream().filter(snippet -> "from".equals(snippet.kind())).toList();
        assertEquals(List.of(), stale(checked), "snippets of the guide that their files no longer hold");
        assertTrue(checked.size() >= 10, "the guide's snippets were found: " + checked.size());
    }

    /** Each snippet that is not in its file (or names none), with what is missing. */
    private static List<String> stale(List<Snippet> snippets) throws IOException {
        Properties generated = archetypeTestProperties();
        Map<String, String> velocity = Map.of("${package}", generated.getProperty("package"),
                "${rootArtifactId}", generated.getProperty("artifactId"));
        List<String> stale = new ArrayList<>();
        for (Snippet snippet : snippets) {
            if (!"from".equals(snippet.kind())) {
                stale.add("a block without <!-- from: <file> -->:\n" + snippet.text());
                continue;
            }
            String file = Files.readString(ROOT.resolve(snippet.source()));
            if (snippet.source().startsWith(TEMPLATES)) {
                for (Map.Entry<String, String> variable : velocity.entrySet()) {
                    file = file.replace(variable.getKey(), variable.getValue());
                }
            }
            String missing = missingPart(snippet.text(), file);
            if (missing != null) {
                stale.add(snippet.source() + ": no longer holds\n" + missing);
            }
        }
        return stale;
    }

    private static long fences(String text) {
        return text.lines().map(String::strip).filter(line -> line.startsWith("```")).count();
    }

    @Test
    void everyCodeBlockNamesWhereItComesFromAndHoldsCode() throws IOException {
        everyBlockIsSeenMarkedAndHoldsCode(Files.readString(GUIDE));
    }

    /**
     * Every fence, opening or closing, with or without a language, indented or not, is seen; the other fence style
     * is refused; each block names its source and holds more than "...". Parts of a block (between "..." lines) are
     * found in their file in order but each may come from anywhere after the previous one: a snippet is an excerpt,
     * and whoever writes one keeps each part a piece of one place.
     */
    private static void everyBlockIsSeenMarkedAndHoldsCode(String text) {
        long fences = fences(text);
        assertEquals(0, text.lines().map(String::strip).filter(line -> line.startsWith("~~~")).count(),
                "~~~ fences are not checked: use ```");
        assertEquals(0, fences % 2, "an unclosed ``` fence");
        List<Snippet> snippets = snippets(text);
        assertEquals(fences / 2, snippets.size(), "code blocks the check does not see");
        for (Snippet snippet : snippets) {
            assertTrue(snippet.kind() != null, "a code block without <!-- from: <file> --> or"
                    + " <!-- generate: outbox-archetype --> before it:\n" + snippet.text());
            assertTrue(!parts(snippet.text()).isEmpty(), "a block of nothing but '...' from " + snippet.source());
        }
    }

    @Test
    void theGenerateCommandGeneratesTheProjectTheArchetypesTestBuildsAndRuns() throws IOException {
        Snippet command = snippets().stream().filter(snippet -> "generate".equals(snippet.kind())).findFirst()
                .orElseThrow(() -> new AssertionError("no <!-- generate: outbox-archetype --> block"));
        Map<String, String> options = new LinkedHashMap<>();
        Matcher option = Pattern.compile("-D([\\w.]+)=(\\S+)").matcher(command.text());
        while (option.find()) {
            options.put(option.group(1), option.group(2));
        }
        Properties generated = archetypeTestProperties();
        String version = Files.readString(ARCHETYPE.resolve("pom.xml"))
                .replaceAll("(?s).*?<parent>.*?<version>([^<]+)</version>.*", "$1");
        Map<String, String> expected = new LinkedHashMap<>();
        expected.put("archetypeGroupId", "dev.outbox");
        expected.put("archetypeArtifactId", "outbox-archetype");
        expected.put("archetypeVersion", version);
        for (String name : List.of("groupId", "artifactId", "version", "package")) {
            expected.put(name, generated.getProperty(name));
        }
        expected.put("interactiveMode", "false");
        assertEquals(expected, options, "the documented command, against the archetype's own test ("
                + "outbox-archetype/src/test/resources/projects/jms-service/archetype.properties)");
    }

    @Test
    void theMessageContractNamesEveryPropertyTheOutboxSends() throws IOException, IllegalAccessException {
        String guide = Files.readString(GUIDE);
        String table = guide.substring(guide.indexOf("## 3. The message contract"), guide.indexOf("## 4."));
        List<String> unnamed = new ArrayList<>();
        for (Field field : OutboxHeaders.class.getFields()) {
            if (Modifier.isStatic(field.getModifiers()) && field.getType() == String.class) {
                String name = (String) field.get(null);
                if (!table.contains("`" + name + "`")) {
                    unnamed.add(field.getName() + " = " + name);
                }
            }
        }
        assertEquals(List.of(), unnamed, "OutboxHeaders constants the message contract's table leaves out");
    }

    private static List<Snippet> snippets() throws IOException {
        return snippets(Files.readString(GUIDE));
    }

    private static List<Snippet> snippets(String text) {
        Matcher block = BLOCK.matcher(text);
        List<Snippet> snippets = new ArrayList<>();
        while (block.find()) {
            snippets.add(new Snippet(block.group(1), block.group(2), block.group(3)));
        }
        return snippets;
    }

    private static Properties archetypeTestProperties() throws IOException {
        Properties properties = new Properties();
        try (var in = Files.newBufferedReader(
                ARCHETYPE.resolve("src/test/resources/projects/jms-service/archetype.properties"))) {
            properties.load(in);
        }
        return properties;
    }

    /**
     * The first part of {@code snippet} (parts are separated by lines "...") that {@code file} does not hold as
     * consecutive lines after the previous part, compared without indentation and blank lines; null when all are.
     */
    static String missingPart(String snippet, String file) {
        List<String> lines = file.lines().map(String::strip).filter(line -> !line.isEmpty()).toList();
        int from = 0;
        for (List<String> part : parts(snippet)) {
            int at = indexOf(lines, part, from);
            if (at < 0) {
                return String.join("\n", part);
            }
            from = at + part.size();
        }
        return null;
    }

    private static List<List<String>> parts(String snippet) {
        List<List<String>> parts = new ArrayList<>();
        List<String> part = new ArrayList<>();
        for (String line : snippet.lines().map(String::strip).filter(line -> !line.isEmpty()).toList()) {
            if (line.equals("...")) {
                if (!part.isEmpty()) {
                    parts.add(part);
                }
                part = new ArrayList<>();
            } else {
                part.add(line);
            }
        }
        if (!part.isEmpty()) {
            parts.add(part);
        }
        return parts;
    }

    private static int indexOf(List<String> lines, List<String> part, int from) {
        for (int start = from; start + part.size() <= lines.size(); start++) {
            if (lines.subList(start, start + part.size()).equals(part)) {
                return start;
            }
        }
        return -1;
    }
}
