package dev.outbox.internal.record;

import dev.outbox.InvalidEventException;
import dev.outbox.OutboxEvent;
import jakarta.json.JsonException;
import jakarta.json.spi.JsonProvider;
import jakarta.json.stream.JsonParser;
import jakarta.json.stream.JsonParsingException;

import java.io.StringReader;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The rules an event must meet before it is written. All events of one call are checked before any is
 * written, so a rejected event leaves no half-written batch.
 */
public final class EventValidation {

    /** Looked up once: {@code Json.createParser} searches the service loader on every call (seen in the write-overhead benchmark's profile). */
    private static final JsonProvider JSON = JsonProvider.provider();

    /** Type names: a letter, then letters, digits, '.', '_' or '-'; at most 100 characters. */
    static final Pattern TYPE_NAME = Pattern.compile("[A-Za-z][A-Za-z0-9._-]{0,99}");
    static final int MAX_AGGREGATE_ID_LENGTH = 200;
    static final int MAX_REFERENCE_LENGTH = 1000;

    private final int maxPayloadBytes;

    public EventValidation(int maxPayloadBytes) {
        this.maxPayloadBytes = maxPayloadBytes;
    }

    void check(List<OutboxEvent> events) {
        if (events == null || events.isEmpty()) {
            throw new InvalidEventException("events", "must hold at least one event", "empty call");
        }
        Map<String, Long> lastVersionByAggregate = new HashMap<>();
        for (OutboxEvent event : events) {
            if (event == null) {
                throw new InvalidEventException("event", "must not be null", "one of " + events.size());
            }
            check(event);
            // R3.3: a command that emits several events fixes their order here, by version, per aggregate.
            String aggregate = event.aggregateType() + "/" + event.aggregateId();
            Long previous = lastVersionByAggregate.put(aggregate, event.aggregateVersion());
            if (previous != null && event.aggregateVersion() <= previous) {
                throw new InvalidEventException("aggregateVersion",
                        "must increase within one call for one aggregate, but " + event.aggregateVersion()
                                + " follows " + previous, event.describe());
            }
        }
    }

    /** Checks one event; an operator's repaired body goes through the same rules as a recorded one (R6.6). */
    public void check(OutboxEvent event) {
        String where = event.describe();
        typeName("aggregateType", event.aggregateType(), where);
        if (event.aggregateId() == null || event.aggregateId().isBlank()) {
            throw new InvalidEventException("aggregateId", "must not be blank", where);
        }
        if (event.aggregateId().chars().anyMatch(Character::isISOControl)) {
            // PostgreSQL cannot store NUL in text, and no id needs a control character: refused by name.
            // The description names the id: its control characters are masked, so no log receives them.
            throw new InvalidEventException("aggregateId", "must not contain control characters",
                    where.replaceAll("\\p{Cntrl}", "?"));
        }
        if (event.aggregateId().length() > MAX_AGGREGATE_ID_LENGTH) {
            throw new InvalidEventException("aggregateId", "must be at most " + MAX_AGGREGATE_ID_LENGTH
                    + " characters, was " + event.aggregateId().length(), where);
        }
        if (event.aggregateVersion() < 1) {
            throw new InvalidEventException("aggregateVersion", "must be at least 1, was "
                    + event.aggregateVersion(), where);
        }
        typeName("eventType", event.eventType(), where);
        if (event.schemaVersion() < 1) {
            throw new InvalidEventException("schemaVersion", "must be at least 1, was "
                    + event.schemaVersion(), where);
        }
        boolean hasPayload = event.payload() != null;
        boolean hasReference = event.payloadReference() != null;
        if (hasPayload == hasReference) {
            throw new InvalidEventException("payload", "or payloadReference must be set, and not both", where);
        }
        if (hasPayload) {
            payload(event.payload(), where);
        } else {
            reference(event, where);
        }
    }

    private void payload(String payload, String where) {
        long bytes = utf8Length(payload);
        if (bytes > maxPayloadBytes) {
            // R3.5: large bodies go by reference; the limit is the setting outbox.payload.max-bytes.
            throw new InvalidEventException("payload", "is " + bytes + " bytes, over the limit of "
                    + maxPayloadBytes + " (outbox.payload.max-bytes); store a large body as an immutable "
                    + "resource and record a payloadReference", where);
        }
        try (JsonParser parser = JSON.createParser(new StringReader(payload))) {
            if (!parser.hasNext() || parser.next() != JsonParser.Event.START_OBJECT) {
                throw new InvalidEventException("payload", "must be a JSON object", where);
            }
            // Walk the object with next(), which fails on truncated input; Parsson's skipObject() spins
            // forever on "{\"a\":" (seen with Parsson 1.1.7), a denial of service from one bad payload.
            // Each open object's member names (an open array holds none): a name given twice reads as the first
            // value to one parser and the last to another, so an approver's diff could hide what a consumer
            // applies (R9.4); the message gives the position only (R6.3).
            Deque<Set<String>> open = new ArrayDeque<>();
            open.push(new HashSet<>());
            while (!open.isEmpty()) {
                JsonParser.Event next = parser.next();
                switch (next) {
                    case START_OBJECT -> open.push(new HashSet<>());
                    case START_ARRAY -> open.push(Set.of());
                    case END_OBJECT, END_ARRAY -> open.pop();
                    case KEY_NAME -> {
                        if (!open.peek().add(parser.getString())) {
                            throw new InvalidEventException("payload", "names a member twice in one object (at line "
                                    + parser.getLocation().getLineNumber() + ", column "
                                    + parser.getLocation().getColumnNumber() + ")", where);
                        }
                    }
                    default -> {
                    }
                }
            }
            if (parser.hasNext()) {
                throw new InvalidEventException("payload", "must be one JSON object, with nothing after it", where);
            }
        } catch (JsonParsingException e) {
            // The parser's message may quote the payload: keep only the position (R6.3).
            throw new InvalidEventException("payload", "is not valid JSON (at line "
                    + e.getLocation().getLineNumber() + ", column " + e.getLocation().getColumnNumber() + ")",
                    where);
        } catch (JsonException | java.util.NoSuchElementException e) {
            throw new InvalidEventException("payload", "is not valid JSON", where);
        } catch (InvalidEventException refused) {
            throw refused;
        } catch (RuntimeException beyondTheParsersLimits) {
            if (beyondTheParsersLimits.getClass() != RuntimeException.class) {
                throw beyondTheParsersLimits;
            }
            // Parsson refuses nesting deeper than 1000 with a plain RuntimeException, not a JsonException.
            throw new InvalidEventException("payload", "is nested deeper than the JSON parser allows", where);
        }
    }

    private static void reference(OutboxEvent event, String where) {
        String text = event.payloadReference().toString();
        if (!event.payloadReference().isAbsolute()) {
            throw new InvalidEventException("payloadReference", "must be an absolute URI", where);
        }
        if (text.length() > MAX_REFERENCE_LENGTH) {
            throw new InvalidEventException("payloadReference", "must be at most " + MAX_REFERENCE_LENGTH
                    + " characters, was " + text.length(), where);
        }
    }

    private static void typeName(String field, String value, String where) {
        if (value == null || value.isBlank()) {
            throw new InvalidEventException(field, "must not be blank", where);
        }
        if (!TYPE_NAME.matcher(value).matches()) {
            throw new InvalidEventException(field, "must start with a letter and hold only letters, digits, "
                    + "'.', '_' or '-' (at most 100), was '" + value + "'", where);
        }
    }

    /** The UTF-8 size without encoding the string. */
    static long utf8Length(String s) {
        long bytes = 0;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c < 0x80) {
                bytes += 1;
            } else if (c < 0x800) {
                bytes += 2;
            } else if (Character.isHighSurrogate(c) && i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1))) {
                bytes += 4;
                i++;
            } else {
                bytes += 3;
            }
        }
        return bytes;
    }
}
