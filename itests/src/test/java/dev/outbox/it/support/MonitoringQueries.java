package dev.outbox.it.support;

import jakarta.json.Json;
import jakarta.json.JsonObject;
import jakarta.json.JsonReader;
import jakarta.json.JsonValue;

import java.io.IOException;
import java.io.StringReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The queries the repository ships for operators: the Prometheus alert rules and the Grafana dashboard under
 * {@code monitoring/}. Integration tests compare the series they name with a real server's scrape, so a renamed
 * meter cannot leave an alert that never fires.
 */
public final class MonitoringQueries {

    public static final Path ROOT = Path.of("..", "monitoring");
    public static final Path RULES = ROOT.resolve("prometheus/outbox-alerts.yml");
    public static final Path RULE_TESTS = ROOT.resolve("prometheus/outbox-alerts.test.yml");
    public static final Path DASHBOARD = ROOT.resolve("grafana/outbox-dashboard.json");

    private static final Pattern SERIES = Pattern.compile("\\boutbox_[a-z_]+");

    private MonitoringQueries() {
    }

    /** Every PromQL expression of the alert rules (single-line or folded with {@code >}). */
    public static List<String> ruleExpressions() {
        List<String> expressions = new ArrayList<>();
        List<String> lines = read(RULES).lines().toList();
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i).trim();
            if (!line.startsWith("expr:")) {
                continue;
            }
            String inline = line.substring("expr:".length()).trim();
            if (!inline.equals(">")) {
                expressions.add(inline);
                continue;
            }
            StringBuilder folded = new StringBuilder();
            while (i + 1 < lines.size() && lines.get(i + 1).startsWith("          ")) {
                folded.append(lines.get(++i).trim()).append(' ');
            }
            expressions.add(folded.toString().trim());
        }
        return expressions;
    }

    /** Every PromQL expression of the dashboard's panels. */
    public static List<String> dashboardExpressions() {
        List<String> expressions = new ArrayList<>();
        try (JsonReader reader = Json.createReader(new StringReader(read(DASHBOARD)))) {
            for (JsonValue panel : reader.readObject().getJsonArray("panels")) {
                for (JsonValue target : panel.asJsonObject().getJsonArray("targets")) {
                    expressions.add(((JsonObject) target).getString("expr"));
                }
            }
        }
        return expressions;
    }

    /** The series names the rules and the dashboard query. */
    public static Set<String> seriesNames() {
        Set<String> names = new TreeSet<>();
        List<String> all = new ArrayList<>(ruleExpressions());
        all.addAll(dashboardExpressions());
        for (String expression : all) {
            Matcher m = SERIES.matcher(expression);
            while (m.find()) {
                names.add(m.group());
            }
        }
        return names;
    }

    /**
     * Series only a server that publishes to Kafka has (the publisher's topic check); {@code KafkaIT} asserts them on
     * its server, the JMS servers of MetricsIT and WildFlyDeliveryIT do not.
     */
    public static final Set<String> KAFKA_ONLY = Set.of("outbox_topic_at_risk");

    /** The queried series, but the Kafka-only ones, a Prometheus scrape does not have (empty when all are there). */
    public static Set<String> missingFrom(String scrape) {
        Set<String> missing = new TreeSet<>();
        for (String name : seriesNames()) {
            if (!KAFKA_ONLY.contains(name) && absent(scrape, name)) {
                missing.add(name);
            }
        }
        return missing;
    }

    /** The queried Kafka-only series a scrape does not have; a name no rule or panel queries any more is missing. */
    public static Set<String> missingKafkaSeriesFrom(String scrape) {
        Set<String> missing = new TreeSet<>();
        Set<String> queried = seriesNames();
        for (String name : KAFKA_ONLY) {
            if (!queried.contains(name) || absent(scrape, name)) {
                missing.add(name);
            }
        }
        return missing;
    }

    private static boolean absent(String scrape, String name) {
        return scrape.lines().noneMatch(l -> l.startsWith(name + "{") || l.startsWith(name + " "));
    }

    static String read(Path file) {
        try {
            return Files.readString(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + file.toAbsolutePath(), e);
        }
    }
}
