package dev.outbox;

import dev.outbox.internal.persistence.OutboxDataSource;
import dev.outbox.internal.persistence.SideEffectRows;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.transaction.Transactional;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;

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
 */
@ApplicationScoped
public class SideEffectLedger {

    /** What an earlier attempt of this side effect left behind. */
    public enum Previous {
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
    public record Attempt(String idempotencyKey, Previous previous) {
    }

    @Inject
    OutboxDataSource database;

    public static String idempotencyKey(EventId eventId, String effect) {
        return eventId + ":" + effect;
    }

    /** Records that the side effect is about to happen, in a transaction of its own. */
    @Transactional(Transactional.TxType.REQUIRES_NEW)
    public Attempt begin(String consumer, EventId eventId, String effect) {
        try (Connection connection = database.connect()) {
            return begin(connection, consumer, eventId, effect, now());
        } catch (SQLException e) {
            throw new IllegalStateException("side-effect ledger failed for " + consumer + " " + effect + " of " + eventId, e);
        }
    }

    /** The external service confirmed; {@code externalRef} is its id for the effect, if it gave one. */
    @Transactional(Transactional.TxType.REQUIRES_NEW)
    public void succeeded(String consumer, String idempotencyKey, String externalRef) {
        finish(consumer, idempotencyKey, "SUCCEEDED", externalRef);
    }

    /** The external service refused for certain: a later attempt may do it again. */
    @Transactional(Transactional.TxType.REQUIRES_NEW)
    public void failed(String consumer, String idempotencyKey) {
        finish(consumer, idempotencyKey, "FAILED", null);
    }

    private void finish(String consumer, String key, String state, String externalRef) {
        try (Connection connection = database.connect()) {
            finish(connection, consumer, key, state, externalRef, now());
        } catch (SQLException e) {
            throw new IllegalStateException("side-effect ledger failed for " + consumer + " " + key, e);
        }
    }

    /** {@link #begin(String, EventId, String)} in the caller's transaction (the tests' way in, on a real database). */
    static Attempt begin(Connection connection, String consumer, EventId eventId, String effect, OffsetDateTime now)
            throws SQLException {
        String key = idempotencyKey(eventId, effect);
        return new Attempt(key, Previous.valueOf(SideEffectRows.begin(connection, consumer, key, eventId.value(),
                effect, now)));
    }

    /** {@link #succeeded} and {@link #failed} in the caller's transaction: state is SUCCEEDED or FAILED. */
    static void finish(Connection connection, String consumer, String key, String state, String externalRef,
                       OffsetDateTime now) throws SQLException {
        SideEffectRows.finish(connection, consumer, key, state, externalRef, now);
    }

    private static OffsetDateTime now() {
        return OffsetDateTime.now(ZoneOffset.UTC);
    }
}
