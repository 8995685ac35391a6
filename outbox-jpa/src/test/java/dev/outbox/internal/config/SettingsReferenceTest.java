package dev.outbox.internal.config;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * The settings are declared once ({@link Settings}); what the repository says about them is generated from that
 * declaration and checked here, so it cannot drift: the reference in docs/settings.md, the variables of the
 * Liberty includes (liberty-config's outbox.xml and its JMS, Kafka and admin parts) and the config source of the WildFly include (outbox.cli).
 *
 * <p>After changing {@link Settings}, regenerate the three generated blocks with
 * {@code mvn -pl outbox-jpa test -Dtest=SettingsReferenceTest -Dsettings.write=true} and commit them.
 */
class SettingsReferenceTest {

    static final Path REFERENCE = Path.of("..", "docs", "settings.md");
    static final Path LIBERTY_CONFIG = Path.of("..", "liberty-config", "src", "main", "liberty", "config");

    /**
     * Issue 45: each Liberty include declares the settings of its own concern, so a service includes only the parts
     * its EAR holds; the core (outbox.xml) takes every section no other include claims.
     */
    static final Map<String, Set<Section>> LIBERTY_INCLUDES = Map.of(
            "outbox-jms.xml", Set.of(Section.JMS),
            "outbox-kafka.xml", Set.of(Section.KAFKA),
            "outbox-admin.xml", Set.of(Section.REPLAY));
    static final Path WILDFLY_SCRIPT = Path.of("..", "wildfly-config", "src", "main", "cli", "outbox.cli");
    /** Issue 45: the WildFly scripts split as the Liberty includes are; the core (outbox.cli) takes the rest. */
    static final Map<String, Set<Section>> WILDFLY_SCRIPTS = Map.of(
            "outbox-jms.cli", Set.of(Section.JMS),
            "outbox-kafka.cli", Set.of(Section.KAFKA),
            "outbox-admin.cli", Set.of(Section.REPLAY));
    static final String BEGIN = "BEGIN generated from Settings.java";
    static final String END = "END generated";

    /**
     * Where the WildFly include differs from the declared defaults: WildFly binds no java:comp on the threads where
     * the outbox looks these up, so it names the stock server's default datasource and the registry globally.
     */
    static final Map<String, String> WILDFLY_VALUES = Map.of(
            "outbox.datasource", "java:jboss/datasources/ExampleDS",
            "outbox.transaction-registry", "java:jboss/TransactionSynchronizationRegistry");

    @Test
    void theSettingsReferenceInTheDocsIsGeneratedFromTheDeclarations() throws IOException {
        checkGenerated(REFERENCE, "<!-- ", " -->", markdown());
    }

    @Test
    void theLibertyIncludesDeclareEverySettingWithItsDefaultEachInTheIncludeOfItsConcern() throws IOException {
        Set<Section> claimed = new java.util.HashSet<>();
        LIBERTY_INCLUDES.values().forEach(claimed::addAll);
        checkGenerated(LIBERTY_CONFIG.resolve("outbox.xml"), "<!-- ", " -->",
                libertyVariables(section -> !claimed.contains(section)));
        for (Map.Entry<String, Set<Section>> include : LIBERTY_INCLUDES.entrySet()) {
            checkGenerated(LIBERTY_CONFIG.resolve(include.getKey()), "<!-- ", " -->",
                    libertyVariables(include.getValue()::contains));
        }
    }

    @Test
    void theWildFlyScriptsSetEverySettingToItsDefaultEachInTheScriptOfItsConcern() throws IOException {
        Set<Section> claimed = new java.util.HashSet<>();
        WILDFLY_SCRIPTS.values().forEach(claimed::addAll);
        checkGenerated(WILDFLY_SCRIPT, "# ", "", wildflyConfigSource("outbox", 150, section -> !claimed.contains(section)));
        for (Map.Entry<String, Set<Section>> script : WILDFLY_SCRIPTS.entrySet()) {
            // a part's source sits below the core's, so a setting a service puts in "outbox" wins whichever part
            // declares it
            checkGenerated(WILDFLY_SCRIPT.resolveSibling(script.getKey()), "# ", "", wildflyConfigSource(
                    script.getKey().replace(".cli", ""), 140, script.getValue()::contains));
        }
    }

    @Test
    void everyOutboxSettingAWildFlyScriptChangesIsDeclared() throws IOException {
        Set<String> declared = new TreeSet<>();
        Settings.all().forEach(s -> declared.add(s.name()));
        Set<String> unknown = new TreeSet<>();
        try (var scripts = Files.list(WILDFLY_SCRIPT.getParent())) {
            for (Path script : scripts.filter(p -> p.toString().endsWith(".cli")).toList()) {
                java.util.regex.Matcher put = java.util.regex.Pattern.compile("key=(outbox\\.[^,)\\s]+)")
                        .matcher(Files.readString(script, StandardCharsets.UTF_8));
                while (put.find()) {
                    if (!declared.contains(put.group(1))) {
                        unknown.add(script.getFileName() + ": " + put.group(1));
                    }
                }
            }
        }
        assertEquals(Set.of(), unknown, "a WildFly script changes a setting Settings.java does not declare");
    }

    @Test
    void everySettingIsDeclaredOnceWithAMeaning() {
        Set<String> names = new TreeSet<>();
        for (Setting setting : Settings.all()) {
            assertTrue(names.add(setting.name()), setting.name() + " is declared twice");
            assertTrue(setting.description().endsWith("."), setting.name() + " needs a description (a sentence)");
            assertTrue(setting.name().startsWith("outbox."), setting.name() + " is not an outbox.* name");
        }
        assertTrue(names.size() > 40, "found the declarations: " + names.size());
    }

    /** The declarations an operator sets in the server's configuration (not pass-through prefixes nor test hooks). */
    static List<Setting> inServerConfiguration() {
        return Settings.all().stream().filter(s -> s.kind() != Setting.Kind.PREFIX && s.defaultNote() == null
                && s.section() != Section.TESTS_ONLY).toList();
    }

    static String markdown() {
        StringBuilder out = new StringBuilder();
        for (Section section : Section.values()) {
            List<Setting> settings = Settings.all().stream().filter(s -> s.section() == section).toList();
            if (settings.isEmpty()) {
                continue;
            }
            out.append("\n### ").append(section.title).append("\n\n").append(section.summary).append("\n\n");
            out.append("| setting | type | default | meaning |\n|---|---|---|---|\n");
            for (Setting s : settings) {
                String name = s.kind() == Setting.Kind.PREFIX ? "`" + s.name() + "<property>`" : "`" + s.name() + "`";
                if (s.perType()) {
                    name += ", per type `" + s.name() + ".<EventType>`";
                }
                out.append("| ").append(name).append(" | ").append(type(s)).append(" | ").append(defaultOf(s))
                        .append(" | ").append(s.description().replace("|", "\\|")).append(" |\n");
            }
        }
        return out.append('\n').toString();
    }

    static String libertyVariables(java.util.function.Predicate<Section> sections) {
        StringBuilder out = new StringBuilder("\n");
        for (Section section : Section.values()) {
            if (!sections.test(section)) {
                continue;
            }
            List<Setting> settings = inServerConfiguration().stream().filter(s -> s.section() == section).toList();
            if (settings.isEmpty()) {
                continue;
            }
            out.append("  <!-- ").append(section.title).append(": ").append(section.summary).append(" -->\n");
            for (Setting s : settings) {
                out.append("  <variable name=\"").append(s.name()).append("\" defaultValue=\"")
                        .append(s.defaultValue().replace("&", "&amp;").replace("\"", "&quot;")).append("\"/>\n");
            }
        }
        return out.append("  ").toString();
    }

    /** One CLI command: a config source with every setting of the sections (a comment cannot sit inside a command). */
    static String wildflyConfigSource(String source, int ordinal, java.util.function.Predicate<Section> sections) {
        List<String> properties = inServerConfiguration().stream().filter(s -> sections.test(s.section()))
                .map(s -> "  \"" + s.name() + "\" => \"" + WILDFLY_VALUES.getOrDefault(s.name(), s.defaultValue()) + "\"")
                .toList();
        return "\n/subsystem=microprofile-config-smallrye/config-source=" + source + ":add(ordinal=" + ordinal
                + ", properties={ \\\n" + String.join(", \\\n", properties) + " \\\n})\n";
    }

    private static String type(Setting s) {
        return switch (s.kind()) {
            case INTEGER -> "integer, " + s.min() + " to " + s.max();
            case MILLISECONDS -> "milliseconds, " + s.min() + " to " + s.max();
            case CHOICE -> String.join(" or ", s.choices());
            default -> s.kind().label;
        };
    }

    private static String defaultOf(Setting s) {
        if (s.defaultNote() != null) {
            return s.defaultNote();
        }
        if (s.defaultValue() == null || s.defaultValue().isEmpty()) {
            return "(none)";
        }
        return "`" + s.defaultValue() + "`";
    }

    /** Compares the block between the markers with what the declarations give, or writes it with -Dsettings.write. */
    private static void checkGenerated(Path file, String open, String close, String generated) throws IOException {
        String text = Files.readString(file, StandardCharsets.UTF_8);
        String begin = open + BEGIN + ": edit Settings.java, then regenerate (SettingsReferenceTest)" + close;
        String end = open + END + close;
        int from = text.indexOf(begin);
        int to = text.indexOf(end);
        if (from < 0 || to < from) {
            fail(file + " has no generated block between '" + begin + "' and '" + end + "'");
        }
        String current = text.substring(from + begin.length(), to);
        if (current.equals(generated)) {
            return;
        }
        if (Boolean.getBoolean("settings.write")) {
            Files.writeString(file, text.substring(0, from + begin.length()) + generated + text.substring(to),
                    StandardCharsets.UTF_8);
            return;
        }
        assertEquals(generated, current, file + " differs from Settings.java: regenerate it with"
                + " mvn -pl outbox-jpa test -Dtest=SettingsReferenceTest -Dsettings.write=true");
    }
}
