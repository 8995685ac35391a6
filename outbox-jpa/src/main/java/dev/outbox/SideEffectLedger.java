package dev.outbox;

/**
 * The local send ledger for consumers that call an external service (R5.4): an acknowledged message does
 * not prove the mail went out once. Each step commits on its own, before or after the external call, so a
 * crash in between leaves {@code STARTED}: an unknown outcome that the next attempt sees and must reconcile.
 *
 * <pre>{@code
 * SideEffectLedger.Attempt attempt = ledger.begin("mailer", eventId, "welcome-mail");
 * switch (attempt.previous()) {
 *     case SUCCEEDED -> { return; }                                  // done before: never twice
 *     case STARTED -> mail.sendIfAbsent(attempt.idempotencyKey());  // unknown outcome: reconcile by key
 *     case NONE, FAILED -> mail.send(attempt.idempotencyKey());
 * }
 * ledger.succeeded("mailer", attempt.idempotencyKey(), providerMessageId);
 * }</pre>
 *
 * <p>Inject it ({@code @Inject SideEffectLedger ledger}); the outbox's jar provides the one implementation.
 */
public interface SideEffectLedger {

    /** What an earlier attempt of this side effect left behind. */
    enum Previous {
        /** No earlier attempt. */
        NONE,
        /** An earlier attempt started and never recorded its outcome: it may or may not have happened. */
        STARTED,
        /** It happened: do not do it again. */
        SUCCEEDED,
        /** It was refused: doing it again is safe. */
        FAILED
    }

    /**
     * @param idempotencyKey the key to hand the external service: {@code <event id>:<effect>}, the same for every
     *                       attempt and every redelivery of the event
     * @param previous       what the attempts before this one left
     */
    record Attempt(String idempotencyKey, Previous previous) {
    }

    /** The key an external service is handed for one event's effect: the same for every attempt and redelivery. */
    static String idempotencyKey(EventId eventId, String effect) {
        return eventId + ":" + effect;
    }

    /** Records that the side effect is about to happen, in a transaction of its own. */
    Attempt begin(String consumer, EventId eventId, String effect);

    /** The external service confirmed; {@code externalRef} is its id for the effect, if it gave one. */
    void succeeded(String consumer, String idempotencyKey, String externalRef);

    /** The external service refused for certain: a later attempt may do it again. */
    void failed(String consumer, String idempotencyKey);
}
