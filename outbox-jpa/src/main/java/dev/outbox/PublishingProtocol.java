package dev.outbox;

/**
 * Which protocol publishes an event type during a migration from send-in-transaction (R8.3):
 * {@code outbox.publisher.mode} ({@code publish}, the default, or {@code shadow}) for every type, or
 * {@code outbox.publisher.mode.<EventType>} for one. In shadow mode the outbox still records every event, and
 * the publisher claims it and reports what it would send, but sends nothing: the application's old path sends
 * it. The mode is stamped on each event when it is recorded, so one command's event is sent by one path only,
 * even when the flag changes while it waits. The old path asks {@link #outboxPublishes} with the same flag:
 *
 * <pre>{@code
 * outbox.record(event);                                   // always
 * if (!protocol.outboxPublishes(event.eventType())) {
 *     legacySender.send(...);                             // the old path, until this type switches over
 * }
 * }</pre>
 * Read on every call, so a configuration change switches a type over without a restart. A bad value stops
 * start-up, naming the variable. Inject it ({@code @Inject PublishingProtocol protocol}).
 */
public interface PublishingProtocol {

    /** True when the outbox sends events of this type; false while the application's old path does (shadow). */
    boolean outboxPublishes(String eventType);
}
