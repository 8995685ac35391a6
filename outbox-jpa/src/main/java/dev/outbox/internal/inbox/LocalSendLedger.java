package dev.outbox.internal.inbox;

import dev.outbox.EventId;
import dev.outbox.SideEffectLedger;
import dev.outbox.internal.persistence.OutboxDataSource;
import dev.outbox.internal.persistence.SideEffectRows;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.transaction.Transactional;

import java.time.OffsetDateTime;
import java.time.ZoneOffset;

/**
 * The public {@link SideEffectLedger} (R5.4) on {@code side_effect}: each step commits in a transaction of its own,
 * before or after the external call, so a crash in between leaves {@code STARTED} for the next attempt to see.
 */
@ApplicationScoped
public class LocalSendLedger implements SideEffectLedger {

    @Inject
    OutboxDataSource database;

    /** For CDI. */
    public LocalSendLedger() {
    }

    /** On a given datasource, outside a container: the tests' way in, on a real database. */
    LocalSendLedger(OutboxDataSource database) {
        this.database = database;
    }

    @Override
    @Transactional(Transactional.TxType.REQUIRES_NEW)
    public Attempt begin(String consumer, EventId eventId, String effect) {
        return begin(consumer, eventId, effect, now());
    }

    @Override
    @Transactional(Transactional.TxType.REQUIRES_NEW)
    public void succeeded(String consumer, String idempotencyKey, String externalRef) {
        finish(consumer, idempotencyKey, "SUCCEEDED", externalRef, now());
    }

    @Override
    @Transactional(Transactional.TxType.REQUIRES_NEW)
    public void failed(String consumer, String idempotencyKey) {
        finish(consumer, idempotencyKey, "FAILED", null, now());
    }

    /** {@link #begin(String, EventId, String)} in the caller's transaction, at a given time. */
    Attempt begin(String consumer, EventId eventId, String effect, OffsetDateTime now) {
        String key = SideEffectLedger.idempotencyKey(eventId, effect);
        return new Attempt(key, Previous.valueOf(SideEffectRows.begin(database, consumer, key, eventId.value(),
                effect, now)));
    }

    /** {@link #succeeded} and {@link #failed} in the caller's transaction: state is SUCCEEDED or FAILED. */
    void finish(String consumer, String key, String state, String externalRef, OffsetDateTime now) {
        SideEffectRows.finish(database, consumer, key, state, externalRef, now);
    }

    private static OffsetDateTime now() {
        return OffsetDateTime.now(ZoneOffset.UTC);
    }
}
