package dev.outbox.internal.config;

import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.Arrays;
import java.util.Locale;
import java.util.Optional;
import java.util.function.Function;

/**
 * Reads typed settings from a text source (MicroProfile Config in the server, a map in tests). Each parse
 * error names the server.xml variable, so a bad value stops start-up with a message an operator can act on.
 */
public final class SettingReader {

    private final Function<String, Optional<String>> source;

    public SettingReader(Function<String, Optional<String>> source) {
        this.source = source;
    }

    public int integer(String name, int defaultValue, int min, int max) {
        Optional<String> raw = raw(name);
        if (raw.isEmpty()) {
            return defaultValue;
        }
        String rule = "must be an integer from " + min + " to " + max;
        try {
            long value = Long.parseLong(raw.get());
            if (value < min || value > max) {
                throw new InvalidSettingException(name, rule, raw.get());
            }
            return (int) value;
        } catch (NumberFormatException e) {
            throw new InvalidSettingException(name, rule, raw.get());
        }
    }

    public boolean flag(String name, boolean defaultValue) {
        Optional<String> raw = raw(name);
        if (raw.isEmpty()) {
            return defaultValue;
        }
        return switch (raw.get().toLowerCase(Locale.ROOT)) {
            case "true" -> true;
            case "false" -> false;
            default -> throw new InvalidSettingException(name, "must be true or false", raw.get());
        };
    }

    /** An ISO-8601 duration such as {@code P7D} or {@code PT1H}, positive. */
    public Duration duration(String name, Duration defaultValue) {
        Optional<String> raw = raw(name);
        if (raw.isEmpty()) {
            return defaultValue;
        }
        try {
            Duration value = Duration.parse(raw.get());
            if (value.isNegative() || value.isZero()) {
                throw new InvalidSettingException(name, "must be a positive ISO-8601 duration such as P7D or PT1H",
                        raw.get());
            }
            return value;
        } catch (DateTimeParseException e) {
            throw new InvalidSettingException(name, "must be an ISO-8601 duration such as P7D or PT1H", raw.get());
        }
    }

    public String text(String name, String defaultValue) {
        return raw(name).orElse(defaultValue);
    }

    public String oneOf(String name, String defaultValue, String... allowed) {
        String value = text(name, defaultValue).toLowerCase(Locale.ROOT);
        if (Arrays.asList(allowed).contains(value)) {
            return value;
        }
        throw new InvalidSettingException(name, "must be one of " + String.join(", ", allowed), value);
    }

    private Optional<String> raw(String name) {
        return source.apply(name).map(String::trim).filter(s -> !s.isEmpty());
    }
}
