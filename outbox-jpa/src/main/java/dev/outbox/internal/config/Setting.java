package dev.outbox.internal.config;

import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * One setting of the outbox, declared once in {@link Settings}: its name, type, default, allowed range and
 * meaning. The same declaration reads and checks the value (every error names the variable, so a bad value stops
 * start-up with a message an operator can act on) and generates the settings reference in docs/settings.md.
 *
 * @param name         the MicroProfile Config name (on Liberty also the server.xml variable's name)
 * @param section      where the reference lists it
 * @param kind         how the text is read
 * @param defaultValue the value when the setting is absent or blank, as text; null when there is none
 * @param defaultNote  how the reference shows the default when it is not a constant (null otherwise)
 * @param min          the smallest value of an integer or millisecond setting
 * @param max          the largest value of an integer or millisecond setting
 * @param choices      the allowed values of a choice
 * @param perType      whether {@code <name>.<EventType>} overrides it for one event type
 * @param description  what it does, for the reference: one or two sentences
 */
public record Setting(String name, Section section, Kind kind, String defaultValue, String defaultNote, long min,
                      long max, List<String> choices, boolean perType, String description) {

    /** How a setting's text is read. */
    public enum Kind {
        INTEGER("integer"), MILLISECONDS("milliseconds"), FLAG("true or false"), DURATION("ISO-8601 duration"),
        TEXT("text"), CHOICE("one of"), LIST("comma-separated list"), PREFIX("prefix of pass-through properties");

        final String label;

        Kind(String label) {
            this.label = label;
        }
    }

    static Setting integer(String name, Section section, long defaultValue, long min, long max, String description) {
        return new Setting(name, section, Kind.INTEGER, Long.toString(defaultValue), null, min, max, List.of(), false,
                description);
    }

    static Setting millis(String name, Section section, long defaultValue, long min, long max, String description) {
        return new Setting(name, section, Kind.MILLISECONDS, Long.toString(defaultValue), null, min, max, List.of(),
                false, description);
    }

    static Setting flag(String name, Section section, boolean defaultValue, String description) {
        return new Setting(name, section, Kind.FLAG, Boolean.toString(defaultValue), null, 0, 0, List.of(), false,
                description);
    }

    static Setting duration(String name, Section section, String defaultValue, String description) {
        Duration.parse(defaultValue);
        return new Setting(name, section, Kind.DURATION, defaultValue, null, 0, 0, List.of(), false, description);
    }

    static Setting text(String name, Section section, String defaultValue, String description) {
        return new Setting(name, section, Kind.TEXT, defaultValue, null, 0, 0, List.of(), false, description);
    }

    static Setting choice(String name, Section section, String defaultValue, List<String> choices,
                          String description) {
        return new Setting(name, section, Kind.CHOICE, defaultValue, null, 0, 0, List.copyOf(choices), false,
                description);
    }

    static Setting list(String name, Section section, String description) {
        return new Setting(name, section, Kind.LIST, "", null, 0, 0, List.of(), false, description);
    }

    /** {@code <name><property>} settings handed on as {@code <property>} (the name ends with a dot). */
    static Setting prefix(String name, Section section, String description) {
        return new Setting(name, section, Kind.PREFIX, null, null, 0, 0, List.of(), false, description);
    }

    /** The same setting, overridable per event type as {@code <name>.<EventType>}. */
    Setting perEventType() {
        return new Setting(name, section, kind, defaultValue, defaultNote, min, max, choices, true, description);
    }

    /** The same setting, whose default the reference describes in words (it is computed at start). */
    Setting computedDefault(String note) {
        return new Setting(name, section, kind, defaultValue, note, min, max, choices, perType, description);
    }

    // ---- reading

    public int integer(Function<String, Optional<String>> source) {
        require(Kind.INTEGER);
        return (int) whole(name, raw(source, name), defaultValue, min, max);
    }

    /** A millisecond setting whose lower bound is another setting's value (backoff.max-ms is at least initial-ms). */
    public Duration millisAtLeast(Function<String, Optional<String>> source, Duration floor) {
        require(Kind.MILLISECONDS);
        return Duration.ofMillis(whole(name, raw(source, name), defaultValue, Math.max(min, floor.toMillis()), max));
    }

    public Duration millis(Function<String, Optional<String>> source) {
        require(Kind.MILLISECONDS);
        return Duration.ofMillis(whole(name, raw(source, name), defaultValue, min, max));
    }

    public boolean flag(Function<String, Optional<String>> source) {
        require(Kind.FLAG);
        return flagOf(name, raw(source, name).orElse(defaultValue));
    }

    /** The flag for one event type: {@code <name>.<EventType>} when set, else the setting itself. */
    public boolean flag(Function<String, Optional<String>> source, String eventType) {
        requirePerType();
        return raw(source, name + "." + eventType).map(value -> flagOf(name + "." + eventType, value))
                .orElseGet(() -> flag(source));
    }

    private static boolean flagOf(String name, String value) {
        return switch (value.toLowerCase(Locale.ROOT)) {
            case "true" -> true;
            case "false" -> false;
            default -> throw new InvalidSettingException(name, "must be true or false", value);
        };
    }

    public Duration duration(Function<String, Optional<String>> source) {
        return durationOf(name, source, Duration.parse(defaultValue));
    }

    /** The value for one event type: {@code <name>.<EventType>} when set, else the setting itself. */
    public Duration duration(Function<String, Optional<String>> source, String eventType) {
        requirePerType();
        return durationOf(name + "." + eventType, source, duration(source));
    }

    /** The text, or the default (null when the setting has none). */
    public String text(Function<String, Optional<String>> source) {
        return raw(source, name).orElse(defaultValue);
    }

    /** The text for one event type: {@code <name>.<EventType>} when set, else the setting itself. */
    public String text(Function<String, Optional<String>> source, String eventType) {
        requirePerType();
        return raw(source, name + "." + eventType).orElseGet(() -> text(source));
    }

    public String choice(Function<String, Optional<String>> source) {
        return choiceOf(name, raw(source, name).orElse(defaultValue));
    }

    public String choice(Function<String, Optional<String>> source, String eventType) {
        requirePerType();
        return raw(source, name + "." + eventType).map(v -> choiceOf(name + "." + eventType, v))
                .orElseGet(() -> choice(source));
    }

    public Set<String> list(Function<String, Optional<String>> source) {
        require(Kind.LIST);
        return Arrays.stream(raw(source, name).orElse("").split(",")).map(String::trim).filter(s -> !s.isEmpty())
                .collect(Collectors.toUnmodifiableSet());
    }

    /** Every {@code <prefix><property>} among the names, as property to value (in the names' order). */
    public Map<String, String> properties(Function<String, Optional<String>> source, Iterable<String> names) {
        require(Kind.PREFIX);
        return under(name, source, names);
    }

    /** The properties whose names start with {@code prefix}, named without it, in the order of {@code names}. */
    public static Map<String, String> under(String prefix, Function<String, Optional<String>> source,
                                            Iterable<String> names) {
        Map<String, String> properties = new LinkedHashMap<>();
        for (String each : names) {
            if (each.startsWith(prefix) && each.length() > prefix.length()) {
                source.apply(each).ifPresent(v -> properties.put(each.substring(prefix.length()), v));
            }
        }
        return properties;
    }

    /** The setting's name for one event type. */
    public String forType(String eventType) {
        requirePerType();
        return name + "." + eventType;
    }

    @Override
    public String toString() {
        return name;
    }

    private String choiceOf(String variable, String value) {
        require(Kind.CHOICE);
        String lower = value.toLowerCase(Locale.ROOT);
        if (choices.contains(lower)) {
            return lower;
        }
        throw new InvalidSettingException(variable, "must be one of " + String.join(", ", choices), value);
    }

    private Duration durationOf(String variable, Function<String, Optional<String>> source, Duration fallback) {
        require(Kind.DURATION);
        Optional<String> raw = raw(source, variable);
        if (raw.isEmpty()) {
            return fallback;
        }
        try {
            Duration value = Duration.parse(raw.get());
            if (value.isNegative() || value.isZero()) {
                throw new InvalidSettingException(variable, "must be a positive ISO-8601 duration such as P7D or PT1H",
                        raw.get());
            }
            return value;
        } catch (DateTimeParseException e) {
            throw new InvalidSettingException(variable, "must be an ISO-8601 duration such as P7D or PT1H", raw.get());
        }
    }

    private static long whole(String variable, Optional<String> raw, String defaultValue, long min, long max) {
        if (raw.isEmpty()) {
            // The declared default, never checked against a range another setting moved (backoff.max-ms).
            return Long.parseLong(defaultValue);
        }
        String value = raw.get();
        String rule = "must be an integer from " + min + " to " + max;
        try {
            long parsed = Long.parseLong(value);
            if (parsed < min || parsed > max) {
                throw new InvalidSettingException(variable, rule, value);
            }
            return parsed;
        } catch (NumberFormatException e) {
            throw new InvalidSettingException(variable, rule, value);
        }
    }

    private static Optional<String> raw(Function<String, Optional<String>> source, String variable) {
        return source.apply(variable).map(String::trim).filter(s -> !s.isEmpty());
    }

    private void require(Kind wanted) {
        if (kind != wanted) {
            throw new IllegalStateException(name + " is declared as " + kind + ", not " + wanted);
        }
    }

    private void requirePerType() {
        if (!perType) {
            throw new IllegalStateException(name + " is not declared per event type");
        }
    }
}
