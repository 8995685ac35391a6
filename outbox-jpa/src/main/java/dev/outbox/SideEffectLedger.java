package dev.outbox;

import dev.outbox.internal.persistence.OutboxDataSource;
import dev.outbox.internal.persistence.SideEffectRows;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.transaction.Transactional;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
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

    /** The JDBC core of {@link #begin(String, EventId, String)}, in the caller's transaction. */
    public static Attempt begin(Connection connection, String consumer, EventId eventId, String effect, OffsetDateTime now)
            throws SQLException {
        String key = idempotencyKey(eventId, effect);
        try (PreparedStatement insert = connection.prepareStatement(SideEffectRows.INSERT_IF_ABSENT)) {
            insert.setString(1, consumer);
            insert.setString(2, key);
            insert.setObject(3, eventId.value());
            insert.setString(4, effect);
            insert.setObject(5, now);
            insert.setString(6, consumer);
            insert.setString(7, key);
            if (insert.executeUpdate() == 1) {
                return new Attempt(key, Previous.NONE);
            }
        }
        Previous previous;
        try (PreparedStatement read = connection.prepareStatement(SideEffectRows.READ_STATE)) {
            read.setString(1, consumer);
            read.setString(2, key);
            try (ResultSet rs = read.executeQuery()) {
                rs.next();
                previous = Previous.valueOf(rs.getString("state"));
            }
        }
        if (previous != Previous.SUCCEEDED) {
            try (PreparedStatement restart = connection.prepareStatement(SideEffectRows.RESTART)) {
                restart.setObject(1, now);
                restart.setString(2, consumer);
                restart.setString(3, key);
                restart.executeUpdate();
            }
        }
        return new Attempt(key, previous);
    }

    /** The JDBC core of {@link #succeeded} and {@link #failed}: state is SUCCEEDED or FAILED. */
    public static void finish(Connection connection, String consumer, String key, String state, String externalRef,
                       OffsetDateTime now) throws SQLException {
        try (PreparedStatement finish = connection.prepareStatement(SideEffectRows.FINISH)) {
            finish.setString(1, state);
            finish.setString(2, externalRef);
            finish.setObject(3, now);
            finish.setString(4, consumer);
            finish.setString(5, key);
            if (finish.executeUpdate() != 1) {
                throw new IllegalStateException("no side effect " + key + " of consumer " + consumer + " was begun");
            }
        }
    }

    private static OffsetDateTime now() {
        return OffsetDateTime.now(ZoneOffset.UTC);
    }
}
