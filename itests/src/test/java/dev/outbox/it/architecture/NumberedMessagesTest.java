package dev.outbox.it.architecture;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Every log line an operator may act on (INFO and above) in the library modules has a stable id from its module's
 * messages enum (issue 43): ids are unique, each module numbers in its own thousand, the runbook and the alert
 * rules cite only ids that exist, and no library class logs free text at INFO or above.
 */
class NumberedMessagesTest {

    private static final Path ROOT = Path.of("..");
    /** Each library module's messages enum and its thousand. */
    private static final Map<String, Integer> MODULES = Map.of(
            "outbox-jpa/src/main/java/dev/outbox/internal/logging/CoreMessages.java", 1,
            "outbox-ejb/src/main/java/dev/outbox/internal/publish/PublisherMessages.java", 2,
            "outbox-jms-bridge/src/main/java/dev/outbox/internal/transport/jms/JmsMessages.java", 3,
            "outbox-kafka/src/main/java/dev/outbox/internal/transport/kafka/KafkaMessages.java", 4,
            "outbox-liberty-login/src/main/java/dev/outbox/liberty/login/LoginMessages.java", 5,
            "outbox-admin/src/main/java/dev/outbox/internal/admin/AdminMessages.java", 6);
    private static final List<String> LIBRARY = List.of("outbox-jpa", "outbox-ejb", "outbox-jms-bridge",
            "outbox-kafka", "outbox-liberty-login", "outbox-health", "outbox-admin");
    private static final Pattern DEFINED = Pattern.compile("(?m)^\\s+([A-Z_]+)\\((\\d{4}), Level\\.[A-Z]+\\)[,;]");
    private static final Pattern CITED = Pattern.compile("\\bOUTBOX-(\\d{4})\\b");
    /** A free-text log call at INFO or above: what every operator-facing line must not be. */
    private static final Pattern FREE_TEXT = Pattern.compile(
            "\\bLOG\\.(info|warning|severe)\\(|\\bLOG\\.log\\((?!\\s*Level\\.(FINE|FINER|FINEST|CONFIG)\\b)");

    @Test
    void everyMessageIdIsUniqueAndInItsModulesThousand() throws IOException {
        Map<Integer, String> ids = new TreeMap<>();
        List<String> wrong = new ArrayList<>();
        for (Map.Entry<String, Integer> module : MODULES.entrySet()) {
            Matcher defined = DEFINED.matcher(read(ROOT.resolve(module.getKey())));
            int count = 0;
            while (defined.find()) {
                count++;
                int number = Integer.parseInt(defined.group(2));
                String where = defined.group(1) + " in " + module.getKey();
                String before = ids.put(number, where);
                if (before != null) {
                    wrong.add("OUTBOX-" + number + " is used twice: " + before + " and " + where);
                }
                if (number / 1000 != module.getValue()) {
                    wrong.add(where + " numbers OUTBOX-" + number + " outside its module's " + module.getValue() + "xxx");
                }
            }
            assertTrue(count > 0, "no message read from " + module.getKey() + " (the pattern or the path changed?)");
        }
        assertEquals(List.of(), wrong, "message ids must be unique and in their module's thousand");
        assertTrue(ids.size() > 60, "the messages of every module were read: " + ids.size());
    }

    @Test
    void theRunbookTheDocsAndTheAlertRulesCiteOnlyIdsThatExist() throws IOException {
        Set<String> defined = new TreeSet<>();
        for (String module : MODULES.keySet()) {
            Matcher matcher = DEFINED.matcher(read(ROOT.resolve(module)));
            while (matcher.find()) {
                defined.add(matcher.group(2));
            }
        }
        Set<String> unknown = new TreeSet<>();
        int cited = 0;
        try (Stream<Path> files = Stream.concat(Files.walk(ROOT.resolve("docs")), Files.walk(ROOT.resolve("monitoring")))) {
            for (Path file : files.filter(f -> Files.isRegularFile(f) && (f.toString().endsWith(".md")
                    || f.toString().endsWith(".yml") || f.toString().endsWith(".json"))).toList()) {
                Matcher matcher = CITED.matcher(read(file));
                while (matcher.find()) {
                    cited++;
                    if (!defined.contains(matcher.group(1))) {
                        unknown.add("OUTBOX-" + matcher.group(1) + " in " + ROOT.relativize(file));
                    }
                }
            }
        }
        assertTrue(cited > 10, "the runbook cites message ids: " + cited);
        assertEquals(Set.of(), unknown, "ids cited that no messages enum defines");
        Set<String> undocumented = new TreeSet<>(defined);
        Matcher inRunbook = CITED.matcher(read(ROOT.resolve("docs/runbook.md")));
        while (inRunbook.find()) {
            undocumented.remove(inRunbook.group(1));
        }
        assertEquals(Set.of(), undocumented, "ids the runbook's 'Log messages' table does not list");
    }

    @Test
    void noLibraryClassLogsFreeTextAtInfoOrAbove() throws IOException {
        List<String> freeText = new ArrayList<>();
        int files = 0;
        for (String module : LIBRARY) {
            try (Stream<Path> sources = Files.walk(ROOT.resolve(module).resolve("src/main/java"))) {
                for (Path source : sources.filter(f -> f.toString().endsWith(".java")).toList()) {
                    files++;
                    freeText.addAll(freeTextLogCalls(ROOT.relativize(source).toString(), read(source)));
                }
            }
        }
        assertTrue(files > 100, "the library's sources were read: " + files);
        assertEquals(List.of(), freeText, "log lines at INFO or above go through a numbered message");
    }

    @Test
    void theRuleCatchesAFreeTextWarning() {
        String source = "class X {\n  void f() {\n    LOG.warning(() -> \"parked \" + id);\n"
                + "    LOG.log(Level.SEVERE, \"down\", e);\n    LOG.fine(\"detail\");\n    LOG.log(level, text);\n"
                + "    LOG.log(Level.FINE, \"detail\", e);\n  }\n}\n";
        assertEquals(List.of("X.java:3", "X.java:4", "X.java:6"), freeTextLogCalls("X.java", source));
    }

    private static List<String> freeTextLogCalls(String name, String source) {
        List<String> found = new ArrayList<>();
        String[] lines = source.split("\n", -1);
        for (int i = 0; i < lines.length; i++) {
            if (FREE_TEXT.matcher(lines[i]).find()) {
                found.add(name + ":" + (i + 1));
            }
        }
        return found;
    }

    private static String read(Path file) throws IOException {
        return Files.readString(file, StandardCharsets.UTF_8);
    }
}
