package dev.outbox.internal.record;

import dev.outbox.DuplicateEventVersionException;
import dev.outbox.EventId;
import dev.outbox.InvalidEventException;
import dev.outbox.NoTransactionException;
import dev.outbox.OutboxEvent;
import dev.outbox.OutboxException;
import dev.outbox.OutboxRecorder;
import dev.outbox.OutboxWriteException;
import dev.outbox.Outboxed;
import dev.outbox.PublishingProtocol;
import dev.outbox.TraceContext;
import dev.outbox.internal.config.OutboxSettings;
import dev.outbox.internal.failure.Causes;
import dev.outbox.internal.logging.CoreMessages;
import dev.outbox.internal.persistence.OutboxDataSource;
import dev.outbox.internal.persistence.OutboxTransactions;
import dev.outbox.internal.persistence.PendingRow;
import dev.outbox.internal.trace.Tracing;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Event;
import jakarta.inject.Inject;
import jakarta.transaction.Status;
import jakarta.transaction.Synchronization;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.logging.Logger;
import java.util.stream.Collectors;

/**
 * The public {@link OutboxRecorder}: validates a command's events, writes them in the caller's JTA
 * transaction (buffered until the outermost {@link Outboxed} command returns), maps a failed insert to the API's
 * exceptions and announces the ids after commit.
 *
 * <p>The rows go in with plain JDBC on {@code outbox.datasource}, whose connection inside the transaction is the one
 * the business change uses (R1.2): no persistence unit, no unit of work to register and diff at flush, which is
 * most of what the outbox added to a small command's time in the server (issue 20: B1 write overhead).
 */
@ApplicationScoped
public class EventRecording implements OutboxRecorder {

    private static final Logger LOG = Logger.getLogger(EventRecording.class.getName());

    @Inject
    OutboxDataSource dataSource;

    @Inject
    OutboxTransactions transactions;

    @Inject
    OutboxSettings settings;

    @Inject
    PublishingProtocol protocol;

    @Inject
    Event<OutboxCommitted> committed;

    @Inject
    Tracing tracing;

    @Override
    public List<EventId> record(List<OutboxEvent> events) {
        requireActiveTransaction();
        try {
            new EventValidation(settings.maxPayloadBytes()).check(events);
        } catch (InvalidEventException e) {
            transactions.registry().setRollbackOnly();
            throw e;
        }
        OffsetDateTime now = OffsetDateTime.now(ZoneOffset.UTC);
        // R6.7: the span recording the events becomes their consumers' parent; read once for the whole command.
        TraceContext trace = tracing.current().orElse(null);
        List<PendingRow> rows = new ArrayList<>(events.size());
        List<EventId> ids = new ArrayList<>(events.size());
        for (OutboxEvent event : events) {
            EventId id = EventId.next();
            ids.add(id);
            // R8.3: the protocol is bound per event when it is recorded, so a switch-over never sends it twice.
            rows.add(new PendingRow(id, event, now, !protocol.outboxPublishes(event.eventType()), trace));
        }
        PendingEvents pending = pending();
        pending.recorded(ids);
        if (pending.insideCommand()) {
            pending.buffer(rows);
        } else {
            write(rows);
        }
        return ids;
    }

    /** Runs an {@link Outboxed} command's body; called by the interceptor inside the transaction. */
    public <T> T command(Callable<T> body) throws Exception {
        requireActiveTransaction();
        PendingEvents pending = pending();
        pending.enterCommand();
        T result;
        try {
            result = body.call();
        } catch (RuntimeException | Error e) {
            // @Transactional rolls back on these: the buffered events must not be written.
            if (pending.exitCommand()) {
                pending.discardBuffered();
            }
            throw e;
        } catch (Exception checked) {
            // @Transactional commits on a checked exception, so the events commit with the business change.
            if (pending.exitCommand()) {
                try {
                    write(pending.takeBuffered());
                } catch (OutboxException e) {
                    e.addSuppressed(checked);
                    throw e;
                }
            }
            throw checked;
        }
        if (pending.exitCommand()) {
            write(pending.takeBuffered());
        }
        return result;
    }

    private void write(List<PendingRow> rows) {
        if (rows.isEmpty()) {
            return;
        }
        // Executed now, not at commit: a violated key must fail the command, not a commit that already ran the
        // business change's side effects (R3.1). Closing the handle leaves the connection to the transaction.
        try (Connection connection = dataSource.connect()) { // R1.1: never rows that would commit alone
            dataSource.dialect().record(connection, rows);
        } catch (SQLException | RuntimeException e) {
            transactions.registry().setRollbackOnly();
            String events = rows.stream().map(row -> row.eventId() + " " + row.event().describe())
                    .collect(Collectors.joining(", "));
            CoreMessages.INSERT_FAILED.log(LOG,
                    () -> "outbox insert failed, transaction marked rollback-only: " + events);
            if (Causes.isUniqueViolation(e)) {
                throw new DuplicateEventVersionException(events, e);
            }
            throw new OutboxWriteException(events, e);
        }
    }

    private void requireActiveTransaction() {
        int status = transactions.registry().getTransactionStatus();
        if (status == Status.STATUS_NO_TRANSACTION) {
            throw new NoTransactionException();
        }
        if (status != Status.STATUS_ACTIVE) {
            throw new OutboxException("the caller's transaction can no longer commit (JTA status " + status
                    + "); nothing was written");
        }
    }

    /** This transaction's pending events; the first call registers the after-commit wake-up. */
    private PendingEvents pending() {
        PendingEvents pending = (PendingEvents) transactions.registry().getResource(PendingEvents.class);
        if (pending == null) {
            pending = new PendingEvents();
            transactions.registry().putResource(PendingEvents.class, pending);
            PendingEvents ofThisTransaction = pending;
            transactions.registry().registerInterposedSynchronization(new Synchronization() {
                @Override
                public void beforeCompletion() {
                }

                @Override
                public void afterCompletion(int status) {
                    if (status == Status.STATUS_COMMITTED) {
                        announce(ofThisTransaction.recordedIds());
                    }
                }
            });
        }
        return pending;
    }

    private void announce(List<EventId> ids) {
        if (ids.isEmpty()) {
            return;
        }
        try {
            committed.fire(new OutboxCommitted(ids));
        } catch (RuntimeException e) {
            // The wake-up is a hint; the publisher's timer finds the rows anyway.
            CoreMessages.WAKE_UP_FAILED.log(LOG, e,
                    () -> "outbox wake-up observer failed; the next publisher tick delivers");
        }
    }

}
