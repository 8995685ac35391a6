package dev.outbox;

/**
 * The message properties (JMS) and record headers (Kafka) an outbox message carries, read by the inbox on the
 * consumer side. Names are Java identifiers, as JMS requires; on Kafka each header value is UTF-8 text. The
 * body is the payload JSON exactly as recorded.
 */
public final class OutboxHeaders {

    public static final String EVENT_ID = "outboxEventId";
    public static final String EVENT_TYPE = "outboxEventType";
    public static final String AGGREGATE_TYPE = "outboxAggregateType";
    public static final String AGGREGATE_ID = "outboxAggregateId";
    public static final String AGGREGATE_VERSION = "outboxAggregateVersion";
    public static final String SCHEMA_VERSION = "outboxSchemaVersion";
    /** The event type's ordering policy, {@code strict} or {@code independent} (R4.6): consumers gate only strict types. */
    public static final String ORDERING = "outboxOrdering";
    /**
     * For each event type earlier in the aggregate's history, its latest version below this event, as
     * {@code OrderPlaced=1,OrderPaid=4}; empty on an aggregate's first event and where every earlier event was
     * cleaned up from the outbox; absent on events recorded before schema V11 and where the text would pass 2,000
     * characters (consumers then wait for the version just before). A consumer that receives only some types ({@code outbox.inbox.receives}) waits for the
     * latest of its own types, not for versions it never receives (R5.7).
     */
    public static final String PREVIOUS_VERSIONS = "outboxPreviousVersions";
    /** Set instead of a body when the event stores its body by reference (R3.5). */
    public static final String PAYLOAD_REFERENCE = "outboxPayloadReference";
    /**
     * The W3C trace context of the span that recorded the event (R6.7), under the names every tracer reads; absent
     * when it was recorded outside a traced span.
     */
    public static final String TRACEPARENT = TraceContext.TRACEPARENT;
    public static final String TRACESTATE = TraceContext.TRACESTATE;
    /**
     * JMS only: marks a message without an event that asks the named MDB consumer to apply the waiting events whose
     * turn came while it received nothing (R5.7, after an operator's skip or a recorded failure). The inbox
     * acknowledges it without calling the bean; an MDB with a message selector lets its own through with
     * {@code ... OR outboxRelease = '<its consumer name>'}.
     */
    public static final String RELEASE = "outboxRelease";

    private OutboxHeaders() {
    }
}
