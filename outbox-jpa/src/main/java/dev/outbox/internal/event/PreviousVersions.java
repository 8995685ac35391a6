package dev.outbox.internal.event;

import java.util.Collections;
import java.util.Comparator;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Where an event stands in its aggregate's history by event type (R5.7, consumers that see part of an aggregate):
 * for each event type that occurs earlier in the aggregate's history, the latest version of it below this event.
 * Set at record time from the event just before it ({@code outbox_event.previous_versions}), sent as the
 * {@code outboxPreviousVersions} header, text such as {@code OrderPlaced=1,OrderPaid=4}. A consumer that receives
 * only some types waits for the latest earlier version of those types, not for the versions it never receives.
 *
 * <p>Types the recorder no longer sees (all their rows were cleaned up) are not listed: every such version was
 * published at least the outbox's cleanup retention before this event. An event recorded before schema V11 has no
 * previous versions at all (null column, no header): consumers wait for the version just before it.
 */
public record PreviousVersions(Map<String, Long> latest) {

    /** An aggregate's first event, or an event whose history the recorder could not see. */
    public static final PreviousVersions NONE = new PreviousVersions(Map.of());

    /** The longest text stored and sent: {@code outbox_event.previous_versions} is VARCHAR(2000). */
    public static final int MAX_TEXT = 2000;

    public PreviousVersions {
        latest = Collections.unmodifiableMap(new TreeMap<>(latest));
    }

    /** The versions an event following {@code version} of {@code eventType} after this one carries. */
    public PreviousVersions then(String eventType, long version) {
        Map<String, Long> next = new TreeMap<>(latest);
        next.merge(eventType, version, Math::max);
        return new PreviousVersions(next);
    }

    /**
     * The latest earlier version among {@code eventTypes} (0 where none of them came before): the version a
     * consumer receiving only those types waits for.
     */
    public long latestOf(Set<String> eventTypes) {
        long latestOfTypes = 0;
        for (String type : eventTypes) {
            latestOfTypes = Math.max(latestOfTypes, latest.getOrDefault(type, 0L));
        }
        return latestOfTypes;
    }

    /**
     * As the header and the column hold it; empty for none (the aggregate's earlier events were all cleaned up: the
     * header is still sent, so a consumer tells "none known" from a message without the header). Null where the text
     * would pass {@link #MAX_TEXT}: the event then carries none, and consumers wait for the version just before it
     * (leaving types out would let a consumer of those types go ahead of them).
     */
    public String text() {
        StringBuilder text = new StringBuilder();
        latest.entrySet().stream().sorted(Map.Entry.<String, Long>comparingByValue(Comparator.reverseOrder())
                .thenComparing(Map.Entry.comparingByKey())).forEach(entry -> text.append(text.length() == 0 ? "" : ",")
                .append(entry.getKey()).append('=').append(entry.getValue()));
        return text.length() > MAX_TEXT ? null : text.toString();
    }

    /**
     * Reads the header or the column: blank is {@link #NONE}.
     *
     * @throws IllegalArgumentException naming the damaged item, for text that is not {@code Type=version,...}
     */
    public static PreviousVersions parse(String text) {
        if (text.isBlank()) {
            return NONE;
        }
        Map<String, Long> latest = new TreeMap<>();
        for (String item : text.split(",")) {
            int equals = item.indexOf('=');
            if (equals <= 0) {
                throw new IllegalArgumentException("previous versions '" + text + "': item '" + item
                        + "' is not EventType=version");
            }
            try {
                long version = Long.parseLong(item.substring(equals + 1).trim());
                if (version < 1) {
                    throw new NumberFormatException("below 1");
                }
                latest.merge(item.substring(0, equals).trim(), version, Math::max);
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("previous versions '" + text + "': item '" + item
                        + "' has no version of 1 or more");
            }
        }
        return new PreviousVersions(latest);
    }
}
