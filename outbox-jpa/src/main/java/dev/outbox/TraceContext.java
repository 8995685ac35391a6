package dev.outbox;

import java.util.Optional;
import java.util.regex.Pattern;

/**
 * The W3C trace context of the span that recorded an event (R6.7): kept on the event's row, sent with its message
 * as the standard {@code traceparent} and {@code tracestate} headers, and restored by the inbox so the consumer's
 * span continues the recording request's trace. Only ids and vendor state: nothing of the event's payload.
 *
 * @param traceParent a version-00 {@code traceparent}: {@code 00-<trace id>-<parent span id>-<flags>}
 * @param traceState  the {@code tracestate} list, or null when there is none
 */
public record TraceContext(String traceParent, String traceState) {

    /** Message property (JMS) and record header (Kafka) names, as the W3C Trace Context specification spells them. */
    public static final String TRACEPARENT = "traceparent";
    public static final String TRACESTATE = "tracestate";
    /** The column's width; a longer {@code tracestate} is dropped whole (the trace itself still goes on). */
    public static final int MAX_STATE_LENGTH = 512;

    private static final Pattern PARENT = Pattern.compile("00-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}");
    /** Two lower-case hex digits, neither 00 (read as is) nor ff (invalid by W3C). */
    private static final Pattern LATER_VERSION = Pattern.compile("(?!00|ff)[0-9a-f]{2}");
    private static final String INVALID_TRACE_ID = "0".repeat(32);
    private static final String INVALID_SPAN_ID = "0".repeat(16);

    public TraceContext {
        if (!valid(traceParent)) {
            throw new IllegalArgumentException("not a version-00 W3C traceparent: " + traceParent);
        }
        if (traceState != null && (traceState.isBlank() || traceState.length() > MAX_STATE_LENGTH)) {
            traceState = null;
        }
    }

    /**
     * Reads a context from a row or a message. A missing or damaged {@code traceparent} reads as no context: a
     * foreign header never fails a delivery, it only leaves the consumer's span without a parent. A version above
     * 00 is read by its first four fields, as W3C asks of a version-00 reader.
     */
    public static Optional<TraceContext> read(String traceParent, String traceState) {
        if (traceParent != null && traceParent.length() >= 55 && LATER_VERSION.matcher(traceParent.substring(0, 2)).matches()
                && (traceParent.length() == 55 || traceParent.charAt(55) == '-')) {
            // W3C: a later version is read by its first four fields, and passed on as version 00.
            traceParent = "00" + traceParent.substring(2, 55);
        }
        return valid(traceParent) ? Optional.of(new TraceContext(traceParent, traceState)) : Optional.empty();
    }

    /** The trace's id, 32 lower-case hex digits. */
    public String traceId() {
        return traceParent.substring(3, 35);
    }

    /** The id of the span that recorded the event, 16 lower-case hex digits. */
    public String spanId() {
        return traceParent.substring(36, 52);
    }

    /** The trace flags, two hex digits ({@code 01}: sampled). */
    public String flags() {
        return traceParent.substring(53, 55);
    }

    private static boolean valid(String traceParent) {
        return traceParent != null && PARENT.matcher(traceParent).matches()
                && !traceParent.startsWith(INVALID_TRACE_ID, 3) && !traceParent.startsWith(INVALID_SPAN_ID, 36);
    }
}
