package dev.outbox.it.monitoring;

import dev.outbox.it.support.MonitoringQueries;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * The alert rules and the dashboard the repository ships (monitoring/): the rules are valid and their unit tests
 * pass under Prometheus's own promtool, each alert points at a runbook section that exists, and the dashboard
 * queries the same series. That a real server exposes those series is checked by MetricsIT (Liberty) and
 * WildFlyDeliveryIT.
 */
class MonitoringRulesTest {

    @Test
    void theAlertRulesAreValidAndPassTheirUnitTests() throws Exception {
        String check = promtool("check", "rules", MonitoringQueries.RULES.getFileName().toString());
        assertTrue(check.contains("SUCCESS"), check);
        String tests = promtool("test", "rules", MonitoringQueries.RULE_TESTS.getFileName().toString());
        assertTrue(tests.contains("SUCCESS"), tests);
    }

    @Test
    void everyAlertNamesARunbookSectionThatExists() throws IOException {
        Set<String> anchors = new TreeSet<>();
        for (String line : Files.readAllLines(Path.of("..", "docs", "runbook.md"), StandardCharsets.UTF_8)) {
            if (line.startsWith("#")) {
                anchors.add(githubAnchor(line.replaceFirst("^#+\\s*", "")));
            }
        }
        String rules = Files.readString(MonitoringQueries.RULES, StandardCharsets.UTF_8);
        Matcher alert = Pattern.compile("- alert: (\\w+)[\\s\\S]*?runbook: \"docs/runbook\\.md#([^\"]+)\"").matcher(rules);
        int alerts = 0;
        while (alert.find()) {
            alerts++;
            assertTrue(anchors.contains(alert.group(2)), alert.group(1) + " points at #" + alert.group(2)
                    + ", which docs/runbook.md does not have; its sections: " + anchors);
        }
        assertEquals(rules.split("- alert: ").length - 1, alerts, "every alert names its runbook section");
        assertTrue(alerts >= 5, "found the alerts: " + alerts);
    }

    @Test
    void theDashboardQueriesTheSeriesTheAlertsWatch() {
        List<String> dashboard = MonitoringQueries.dashboardExpressions();
        assertFalse(dashboard.isEmpty(), "the dashboard has queries");
        Set<String> watched = new TreeSet<>();
        for (String expression : MonitoringQueries.ruleExpressions()) {
            Matcher m = Pattern.compile("\\boutbox_[a-z_]+").matcher(expression);
            while (m.find()) {
                watched.add(m.group());
            }
        }
        Set<String> shown = new TreeSet<>();
        dashboard.forEach(e -> {
            Matcher m = Pattern.compile("\\boutbox_[a-z_]+").matcher(e);
            while (m.find()) {
                shown.add(m.group());
            }
        });
        watched.removeAll(shown);
        assertEquals(Set.of(), watched, "series an alert watches but no dashboard panel shows");
    }

    /** GitHub's heading anchors: lower case, punctuation dropped, spaces to hyphens. */
    static String githubAnchor(String heading) {
        return heading.trim().toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9 \\-]", "").replace(' ', '-');
    }

    private static String promtool(String... arguments) throws Exception {
        List<String> command = new java.util.ArrayList<>(List.of("promtool"));
        command.addAll(List.of(arguments));
        Process process;
        try {
            process = new ProcessBuilder(command).directory(MonitoringQueries.RULES.getParent().toFile())
                    .redirectErrorStream(true).start();
        } catch (IOException e) {
            return fail("promtool is not installed: it comes with Prometheus (apt-get install -y prometheus;"
                    + " .ci/run installs it)", e);
        }
        if (!process.waitFor(60, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            fail("promtool " + String.join(" ", arguments) + " did not finish within 60 s");
        }
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(0, process.exitValue(), "promtool " + String.join(" ", arguments) + ":\n" + output);
        return output;
    }
}
