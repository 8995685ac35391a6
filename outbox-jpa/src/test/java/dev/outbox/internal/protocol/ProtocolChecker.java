package dev.outbox.internal.protocol;

import dev.outbox.EventId;
import dev.outbox.Inbox;
import dev.outbox.InboxedEvent;
import dev.outbox.Ordering;
import dev.outbox.OutboxEvent;
import dev.outbox.internal.event.PreviousVersions;
import dev.outbox.internal.inbox.Received;
import dev.outbox.internal.inbox.Resequencer;
import dev.outbox.internal.persistence.ClaimRequest;
import dev.outbox.internal.persistence.Delivery;
import dev.outbox.internal.persistence.Dialect;
import dev.outbox.internal.persistence.Expired;
import dev.outbox.internal.persistence.InboxMarks;
import dev.outbox.internal.persistence.InboxStore;
import dev.outbox.internal.persistence.OutboxDataSource;
import dev.outbox.internal.persistence.PendingRow;
import dev.outbox.internal.persistence.Sql;
import dev.outbox.internal.persistence.StoredEvents;
import dev.outbox.internal.transport.StrictRuns;
import dev.outbox.spi.OutboundEvent;
import dev.outbox.spi.SendResult;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.UUID;
import java.util.function.Supplier;
import java.util.logging.Level;
import java.util.logging.Logger;
import java.util.random.RandomGenerator;

/**
 * A randomized checker of the whole protocol (issue 16), in the spirit of Jepsen, on a real database: writers,
 * three publishers (the dialect's real claim, confirm, retry and park statements), a broker that delays, reorders,
 * loses acks, duplicates and fails, three consumers behind the product's inbox (its resequencer), cleanup,
 * replays and repairs, publishers that crash, and time that passes (leases, backoffs and retention
 * all run out). At the end it checks the invariants against the history it recorded.
 *
 * <p>One thread picks every step with one seeded {@link Random}, and each step is a whole transaction, so a seed
 * and a step count replay a run exactly. Time is the database's clock; every duration of the run is hours long,
 * and a "time passes" step moves every timestamp of the tables back, so wall-clock time during the run never
 * decides anything. What this does not explore: two transactions waiting on each other's locks (the statement
 * tests race connections for that).
 */
public final class ProtocolChecker {

    /** A deliberate bug, to show that the checker bites. */
    public enum Mutation {
        NONE,
        /** The confirm without its claimer and lease version conditions (R4.2). */
        CONFIRM_WITHOUT_CLAIMER,
        /** Cleanup that deletes rows in any state (R8.1). */
        CLEANUP_ANY_STATE,
        /** The consumers gate independent types on versions too (R4.6, R5.7). */
        INDEPENDENT_THROUGH_GATE,
        /** Issue 41: a waiting event is applied at once anyway, as the gap timer of old did (R5.7). */
        APPLY_AFTER_GAP,
        /** Issue 41: the events that waited are dropped, not applied, when the missing version arrives (R5.7). */
        DROP_SUCCESSOR,
        /** Issue 41: a fork is absorbed silently, as a duplicate would be (R7.7). */
        FORK_AS_DUPLICATE,
        /** Issue 41: a consumer of some types applies each as it comes, ignoring the versions it follows (R5.7). */
        PREDECESSOR_IGNORED,
        /** Issue 41: the recorder carries only the version just before an event, not the earlier ones by type (R5.7). */
        ONLY_THE_VERSION_BEFORE,
        /** Issue 41: the previous versions never reach the consumer (no header): it waits for what never comes. */
        HEADER_DROPPED
    }

    // Time moves in steps of 10, 70 or 200 minutes; every duration ends 5 minutes off that grid, so no comparison
    // ever ties and the seconds a run really takes never decide one (a seed replays exactly).
    private static final Duration LEASE = Duration.ofMinutes(65);
    /** The product's backoff at its ceiling from the first attempt: 35 minutes less the jitter below. */
    private static final Backoff BACKOFF = new Backoff(Duration.ofMinutes(35), Duration.ofMinutes(35));
    private static final Duration DELIVERED_RETENTION = Duration.ofMinutes(245);
    private static final Duration RECORDED_DUE_BEFORE = Duration.ofMinutes(55);
    private static final Duration MARK_RETENTION = Duration.ofMinutes(365);
    private static final int AGGREGATES = 6;
    /**
     * Two consumers of every event, one that reads only the independent type (a topic of its own), and one that
     * reads one of the two strict types and the independent one (a selector, R5.7: {@code outbox.inbox.receives}).
     */
    private static final List<String> CONSUMERS = List.of("shipping", "invoicing", "views", "payments");
    private static final String INDEPENDENT_ONLY = "views";
    private static final String PARTIAL = "payments";
    private static final String STRICT_TYPE = "Paid";
    private static final String OTHER_STRICT_TYPE = "Refunded";
    private static final String INDEPENDENT_TYPE = "Noted";
    private static final Set<String> STRICT_TYPES = Set.of(STRICT_TYPE, OTHER_STRICT_TYPE);
    private static final Map<String, Set<String>> RECEIVES = Map.of(PARTIAL, Set.of(STRICT_TYPE, INDEPENDENT_TYPE));

    /** The product's confirm logs each park, retry and lost lease; thousands of them per run say nothing here. */
    private static final Logger CONFIRM_LOG = Logger.getLogger(Confirm.class.getName());

    private final Dialect dialect;
    private final long seed;
    private final Mutation mutation;
    private final Random random;
    /** Which batch in flight a step takes: its own sequence, so the steps of a seed stay as they were. */
    private final Random picks;
    private final Confirm confirm;
    /**
     * The backoff's jitter: up to a minute short of its largest spread, a millisecond later for each tick of the run,
     * so later retries are due later and no two at the same time, four to five minutes off the grid time moves on
     * (a seed replays exactly).
     */
    private final RandomGenerator jitter = new RandomGenerator() {
        @Override
        public long nextLong() {
            throw new UnsupportedOperationException("the backoff asks for a bounded value");
        }

        @Override
        public long nextLong(long bound) {
            long spread = Math.min(bound - 1, 60_000);
            return bound - 1 - spread + (++ticks % spread);
        }
    };
    private final Connection db;
    private final Resend resend;

    // The history the invariants are checked against.
    private final Map<UUID, Recorded> committed = new LinkedHashMap<>();
    /** Events a restore from backup took out of the producer's history, while the broker still had them (R7.7). */
    private final Map<UUID, Recorded> lost = new LinkedHashMap<>();
    private final Map<String, Long> versions = new HashMap<>();
    private final List<String> violations = new ArrayList<>();
    /** consumer/event id of every event a consumer parked as a conflict. */
    private final Set<String> conflicts = new HashSet<>();
    private final Map<UUID, Long> lastReplayedAt = new HashMap<>();
    private final Map<UUID, Long> lastSentAt = new HashMap<>();
    private final Map<UUID, List<String>> trail = new HashMap<>();
    private long sequence;
    private long ticks;
    private long keptAboveHighWater;
    private int steps;

    // The world: publishers' batches in flight, and the broker's queue per consumer.
    private final List<Publisher> publishers = new ArrayList<>();
    private final Map<String, List<Message>> queues = new LinkedHashMap<>();

    record Recorded(UUID id, String aggregateId, long version, String type) {
    }

    record Message(OutboundEvent event, long sentAt) {
    }

    private static final class Publisher {
        final String claimer;
        final Connection connection;
        final Deque<List<OutboundEvent>> claimed = new ArrayDeque<>();
        final Deque<List<Outcome>> sent = new ArrayDeque<>();

        Publisher(String claimer, Connection connection) {
            this.claimer = claimer;
            this.connection = connection;
        }
    }

    public ProtocolChecker(Supplier<Connection> connections, Dialect dialect, long seed, Mutation mutation)
            throws SQLException {
        this.dialect = dialect;
        this.seed = seed;
        this.mutation = mutation;
        this.random = new Random(seed);
        this.picks = new Random(~seed);
        this.confirm = new Confirm(mutation == Mutation.CONFIRM_WITHOUT_CLAIMER ? confirmingWithoutClaimer(dialect)
                : dialect, () -> jitter);
        this.db = connections.get();
        // The operators' replay and repair: the product's state changes, on the checker's own connection.
        this.resend = new Resend(new StoredEvents(OutboxDataSource.over(db, dialect)));
        for (int p = 0; p < 3; p++) {
            publishers.add(new Publisher("p" + p, connections.get()));
        }
        CONSUMERS.forEach(c -> queues.put(c, new ArrayList<>()));
        try (Statement create = db.createStatement()) {
            // event_id as text, so the same table serves every database (MariaDB stores the outbox's ids as CHAR(36))
            create.execute("CREATE TABLE checker_effect (consumer VARCHAR(100) NOT NULL, event_id CHAR(36) NOT NULL,"
                    + " aggregate_id VARCHAR(200) NOT NULL, aggregate_version BIGINT NOT NULL, seq BIGINT NOT NULL)");
        }
    }

    /** Runs up to {@code maxSteps} steps or until {@code budget} has passed, then drains and checks. */
    public Result run(int maxSteps, Duration budget) throws SQLException {
        Level confirmLevel = CONFIRM_LOG.getLevel();
        CONFIRM_LOG.setLevel(Level.SEVERE);
        try {
            return runQuietly(maxSteps, budget);
        } finally {
            CONFIRM_LOG.setLevel(confirmLevel);
        }
    }

    private Result runQuietly(int maxSteps, Duration budget) throws SQLException {
        long deadline = System.nanoTime() + budget.toNanos();
        while (steps < maxSteps && System.nanoTime() < deadline) {
            step(true);
            steps++;
        }
        int ran = steps;
        drain();
        check();
        retentionEmptiesTheInbox();
        return new Result(seed, ran, List.copyOf(violations), committed.size(), sequence, keptAboveHighWater,
                lost.size(), conflicts.size());
    }

    /** What a run found: no violations means every invariant held. */
    public record Result(long seed, int steps, List<String> violations, int events, long operations,
                         long keptAboveHighWater, int restoredAway, int conflictsParked) {

        public String replay() {
            return "-Dchecker.seed=" + seed + " -Dchecker.steps=" + steps;
        }
    }

    private void step(boolean faults) throws SQLException {
        int dice = random.nextInt(100);
        Publisher publisher = publishers.get(random.nextInt(publishers.size()));
        if (dice < 14) {
            record();
        } else if (dice < 26) {
            claim(publisher);
        } else if (dice < 38) {
            send(publisher, faults);
        } else if (dice < 50) {
            confirm(publisher);
        } else if (dice < 78) {
            String consumer = CONSUMERS.get(random.nextInt(CONSUMERS.size()));
            for (int n = 1 + random.nextInt(6); n > 0; n--) {
                consume(consumer, faults);
            }
        } else if (dice < 83) {
            timePasses();
        } else if (dice < 87) {
            cleanup();
        } else if (dice < 91 && faults) {
            replay();
        } else if (dice < 94) {
            repair();
        } else if (dice < 96 && faults) {
            crash(publisher);
        } else if (dice < 97 && faults) {
            restore();
        } else {
            claim(publisher);
        }
    }

    // --- The actors -------------------------------------------------------------------------------------------

    private void record() throws SQLException {
        String aggregate = "a" + random.nextInt(AGGREGATES);
        int count = 1 + random.nextInt(2);
        OffsetDateTime now = Sql.clock(db);
        db.setAutoCommit(false);
        List<Recorded> batch = new ArrayList<>();
        List<PendingRow> rows = new ArrayList<>();
        try {
            for (int i = 0; i < count; i++) {
                long version = versions.merge(aggregate, 1L, Long::sum);
                int kind = random.nextInt(6);
                String type = kind < 2 ? INDEPENDENT_TYPE : kind < 4 ? STRICT_TYPE : OTHER_STRICT_TYPE;
                UUID id = new UUID(random.nextLong(), random.nextLong());
                // A poison body parks at the broker (R4.5) until an operator repairs it.
                String body = random.nextInt(25) == 0 ? "{\"poison\":true}" : "{}";
                // Due in the past, a microsecond later per tick: due at the next claim whatever the real time
                // (a time ahead of the clock by the ticks was due or not by how fast the steps ran).
                OffsetDateTime at = now.minus(RECORDED_DUE_BEFORE).plusNanos(1_000L * ++ticks);
                rows.add(new PendingRow(new EventId(id), OutboxEvent.of("Order", aggregate, version, type, body), at,
                        false));
                batch.add(new Recorded(id, aggregate, version, type));
            }
            dialect.record(db, rows); // the product's insert: it sets the previous versions by type (R5.7)
            for (PendingRow row : rows) {
                // Distinct times: a claim cut between rows of the same time would take them in no defined order.
                update(db, "UPDATE outbox_event SET next_attempt_at = ? WHERE event_id = ?", row.createdAt(),
                        row.eventId().value());
                if (mutation == Mutation.ONLY_THE_VERSION_BEFORE) {
                    forgetAllButTheVersionBefore(row);
                }
            }
            db.commit();
        } finally {
            db.setAutoCommit(true);
        }
        batch.forEach(r -> {
            committed.put(r.id(), r);
            note(r.id(), "recorded " + r.type() + " " + r.aggregateId() + "@" + r.version());
        });
    }

    private void forgetAllButTheVersionBefore(PendingRow row) throws SQLException {
        String text;
        try (PreparedStatement select = db.prepareStatement("SELECT previous_versions FROM outbox_event"
                + " WHERE event_id = ?")) {
            select.setObject(1, row.eventId().value());
            try (ResultSet rs = select.executeQuery()) {
                rs.next();
                text = rs.getString(1);
            }
        }
        if (text != null && !text.isEmpty()) {
            Map.Entry<String, Long> last = PreviousVersions.parse(text).latest().entrySet().stream()
                    .max(Map.Entry.comparingByValue()).orElseThrow();
            update(db, "UPDATE outbox_event SET previous_versions = ? WHERE event_id = ?",
                    last.getKey() + "=" + last.getValue(), row.eventId().value());
        }
    }

    private void claim(Publisher publisher) throws SQLException {
        Connection c = publisher.connection;
        c.setAutoCommit(false);
        try {
            List<OutboundEvent> claimed = dialect.claim(c, new ClaimRequest(publisher.claimer, 1 + random.nextInt(5),
                    LEASE, true, Set.of(INDEPENDENT_TYPE)));
            // One lease end for the whole batch; spread it by microseconds so later claims see no ties.
            OffsetDateTime leaseEnd = Sql.clock(c).plus(LEASE);
            for (OutboundEvent event : claimed) {
                update(c, "UPDATE outbox_event SET next_attempt_at = ? WHERE event_id = ?",
                        leaseEnd.plusNanos(1_000L * (++ticks % 1_000_000)), event.id().value());
            }
            c.commit();
            if (!claimed.isEmpty()) {
                publisher.claimed.add(claimed);
                claimed.forEach(e -> note(e.id().value(), publisher.claimer + " claimed lease " + e.leaseVersion()));
            }
        } finally {
            c.setAutoCommit(true);
        }
    }

    /**
     * Issue 44: a publisher's batches in flight are sent and confirmed by its workers (outbox.publisher.workers) in
     * any order, a later claim's before an earlier one's; so the step takes any of them, not the oldest.
     */
    private <T> T anyOf(Deque<T> inFlight) {
        if (inFlight.isEmpty()) {
            return null;
        }
        List<T> all = new ArrayList<>(inFlight);
        T picked = all.get(picks.nextInt(all.size()));
        inFlight.remove(picked);
        return picked;
    }

    /** The broker: delivered, refused, an ack lost after the broker took it, or taken twice. */
    private void send(Publisher publisher, boolean faults) {
        List<OutboundEvent> batch = anyOf(publisher.claimed);
        if (batch == null) {
            return;
        }
        // The publisher's own wave logic (Routes uses it too): a strict run stops at its first failure.
        List<SendResult> sent = StrictRuns.send(batch, wave -> wave.stream().map(e -> sendOne(e, faults)).toList());
        List<Outcome> results = new ArrayList<>(batch.size());
        for (int i = 0; i < batch.size(); i++) {
            SendResult outcome = sent.get(i);
            results.add(new Outcome(batch.get(i), outcome));
            note(batch.get(i).id().value(), publisher.claimer + " sent: " + outcome);
        }
        publisher.sent.add(results);
    }

    private SendResult sendOne(OutboundEvent event, boolean faults) {
        int dice = faults ? random.nextInt(100) : 99;
        if (event.event().payload() != null && event.event().payload().contains("poison")) {
            return new SendResult.PermanentFailure("Poison");
        } else if (dice < 8) {
            return new SendResult.TransientFailure("transient");
        } else if (dice < 14) {
            deliverToBroker(event);
            return new SendResult.UnknownOutcome("unknown"); // the broker has it; the ack was lost
        } else if (dice < 18) {
            deliverToBroker(event);
            deliverToBroker(event);
        } else {
            deliverToBroker(event);
        }
        return new SendResult.Delivered("m-" + sequence, null, null);
    }

    private static boolean reads(String consumer, String eventType) {
        return consumer.equals(INDEPENDENT_ONLY) ? eventType.equals(INDEPENDENT_TYPE)
                : !RECEIVES.containsKey(consumer) || RECEIVES.get(consumer).contains(eventType);
    }

    private void deliverToBroker(OutboundEvent event) {
        long at = ++sequence;
        lastSentAt.put(event.id().value(), at);
        queues.forEach((consumer, queue) -> {
            if (reads(consumer, event.event().eventType())) {
                queue.add(new Message(event, at));
            }
        });
    }

    /** The product's confirm ({@link Confirm}): its outcome mapping, backoff and conditional statements. */
    private void confirm(Publisher publisher) throws SQLException {
        List<Outcome> results = anyOf(publisher.sent);
        if (results == null) {
            return;
        }
        Connection c = publisher.connection;
        c.setAutoCommit(false);
        try {
            Confirm.Confirmed confirmed = confirm.record(c, publisher.claimer, results, BACKOFF,
                    STRICT_TYPES::contains);
            c.commit();
            results.forEach(r -> note(r.event().id().value(), publisher.claimer
                    + (confirmed.leaseLost().contains(r.event().id().value()) ? " lost its lease before the confirm"
                    : " confirmed " + Confirm.Verdict.of(r.result()))));
        } finally {
            c.setAutoCommit(true);
        }
    }

    /** The dialect with its batch confirm replaced by {@link #confirmWithoutClaimer}: everything else is its own. */
    private Dialect confirmingWithoutClaimer(Dialect real) {
        return (Dialect) Proxy.newProxyInstance(Dialect.class.getClassLoader(), new Class<?>[] {Dialect.class},
                (proxy, method, args) -> {
                    if (method.getName().equals("confirm")) {
                        @SuppressWarnings("unchecked")
                        List<Delivery> delivered = (List<Delivery>) args[3];
                        return confirmWithoutClaimer((Connection) args[0], (OffsetDateTime) args[2], delivered);
                    }
                    try {
                        return method.invoke(real, args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
    }

    private Set<UUID> confirmWithoutClaimer(Connection c, OffsetDateTime now, List<Delivery> delivered)
            throws SQLException {
        Set<UUID> confirmed = new HashSet<>();
        for (Delivery d : delivered) {
            if (update(c, "UPDATE outbox_event SET state = 'DELIVERED', delivered_at = ?, lease_until = NULL"
                    + " WHERE event_id = ? AND state = 'PENDING'", now, d.eventId()) == 1) {
                confirmed.add(d.eventId());
            }
        }
        return confirmed;
    }

    /** A publisher's JVM dies: whatever it claimed or sent is never confirmed; its leases must run out (R4.3). */
    private void crash(Publisher publisher) {
        publisher.claimed.forEach(b -> b.forEach(e -> note(e.id().value(), publisher.claimer + " crashed holding it")));
        publisher.sent.forEach(b -> b.forEach(o -> note(o.event().id().value(), publisher.claimer + " crashed before the confirm")));
        publisher.claimed.clear();
        publisher.sent.clear();
    }

    /**
     * A consumer takes a message of its queue through the product's inbox ({@link Resequencer}). Mostly one of the
     * first three (the broker reorders a little); now and then any message of the queue, however late (a consumer
     * outage, a partition reassignment, a dead-letter re-drive): no timer may decide anything (R5.7).
     */
    private void consume(String consumer, boolean faults) throws SQLException {
        List<Message> queue = queues.get(consumer);
        if (queue.isEmpty()) {
            return;
        }
        int index = faults && random.nextInt(8) == 0 ? random.nextInt(queue.size())
                : random.nextInt(Math.min(3, queue.size()));
        Message message = queue.get(index);
        OutboundEvent event = message.event();
        UUID id = event.id().value();
        boolean failAfterEffect = faults && random.nextInt(20) == 0;
        Ordering ordering = mutation == Mutation.INDEPENDENT_THROUGH_GATE ? Ordering.STRICT : event.ordering();
        PreviousVersions previous = switch (mutation) {
            case HEADER_DROPPED -> null;
            case PREDECESSOR_IGNORED -> PreviousVersions.NONE;
            default -> Received.previousVersions(event.previousVersions());
        };
        Received received = new Received(new InboxedEvent(event.id(), event.event().eventType(), "Order",
                event.event().aggregateId(), event.event().aggregateVersion(), 1, ordering, "{}"),
                "queue-" + consumer, Map.of(), previous);
        List<UUID> applied = new ArrayList<>();
        db.setAutoCommit(false);
        try {
            Resequencer.Result result;
            try {
                result = new Resequencer(new InboxStore(db, dialect), MARK_RETENTION, Set.of(), RECEIVES)
                        .receive(consumer, received,
                        turn -> {
                            if (mutation == Mutation.DROP_SUCCESSOR && turn != received) {
                                return;
                            }
                            effect(consumer, turn);
                            applied.add(turn.event().eventId().value());
                        }, Resequencer.RELEASE_ALL);
                if (mutation == Mutation.APPLY_AFTER_GAP && result.receipt() == Inbox.Receipt.WAITING) {
                    update(db, "DELETE FROM inbox_waiting WHERE consumer = ? AND event_id = ?", consumer, id);
                    OffsetDateTime now = Sql.clock(db);
                    dialect.markProcessed(db, consumer, id, "Order", event.event().aggregateId(),
                            event.event().aggregateVersion(), now, now.plus(MARK_RETENTION));
                    effect(consumer, received);
                    applied.add(id);
                }
                if (mutation == Mutation.FORK_AS_DUPLICATE && result.receipt() == Inbox.Receipt.CONFLICT) {
                    update(db, "DELETE FROM inbox_conflict WHERE consumer = ? AND event_id = ?", consumer, id);
                }
            } catch (SQLException | RuntimeException e) {
                throw e;
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
            if (failAfterEffect && !applied.isEmpty()) {
                db.rollback(); // R7.6: the mark rolls back with the change, and the successors with them
                note(id, consumer + " failed after its change");
                if (random.nextBoolean()) {
                    queue.add(queue.remove(index)); // redelivered late, behind whatever came since
                }
                return;
            }
            db.commit();
            queue.remove(index);
            switch (result.receipt()) {
                case FIRST -> note(id, consumer + " applied it");
                case DUPLICATE -> note(id, consumer + " absorbed a duplicate");
                case WAITING -> note(id, consumer + " stored it to wait for its turn");
                case CONFLICT -> {
                    note(id, consumer + " parked it as a conflict");
                    conflicts.add(consumer + "/" + id);
                }
                case SKIPPED -> violations.add(consumer + " reported " + describe(id) + " as skipped, with no skip");
                case NOT_RECEIVED -> violations.add(consumer + " passed over " + describe(id)
                        + ", a type it receives");
            }
            for (Received successor : result.released()) {
                note(successor.event().eventId().value(), consumer + " applied it in its turn, after " + id);
            }
        } finally {
            db.setAutoCommit(true);
        }
    }

    private void effect(String consumer, Received turn) throws SQLException {
        try (PreparedStatement effect = db.prepareStatement("INSERT INTO checker_effect (consumer,"
                + " event_id, aggregate_id, aggregate_version, seq) VALUES (?, ?, ?, ?, ?)")) {
            effect.setString(1, consumer);
            effect.setString(2, turn.event().eventId().value().toString());
            effect.setString(3, turn.event().aggregateId());
            effect.setLong(4, turn.event().aggregateVersion());
            effect.setLong(5, ++sequence);
            effect.executeUpdate();
        }
    }

    /** Time passes for everyone: leases, backoffs, holds and retention come due, by the database's clock. */
    private void timePasses() throws SQLException {
        timePasses(List.of(10L, 70L, 200L).get(random.nextInt(3)));
    }

    private void timePasses(long minutes) throws SQLException {
        String back = " - INTERVAL '" + minutes + "' MINUTE"; // SQL-standard: H2 and PostgreSQL both read it
        update(db, "UPDATE outbox_event SET created_at = created_at" + back + ", next_attempt_at = next_attempt_at"
                + back + ", lease_until = lease_until" + back + ", delivered_at = delivered_at" + back);
        update(db, "UPDATE processed_event SET processed_at = processed_at" + back + ", retain_until = retain_until" + back);
        update(db, "UPDATE inbox_waiting SET waiting_since = waiting_since" + back);
        note(null, "time passed: " + minutes + " minutes");
    }

    /**
     * One cleanup run, the product's decisions ({@link Retention}) and statements ({@link Expired}) in batches of
     * five; every row it deletes must have been delivered and past retention (R8.1).
     */
    private void cleanup() throws SQLException {
        OffsetDateTime now = Sql.clock(db);
        Map<UUID, String> before = states();
        new Retention(DELIVERED_RETENTION, MARK_RETENTION, 5, 1).run(now, (what, cutOff, limit) -> {
            try {
                if (mutation == Mutation.CLEANUP_ANY_STATE && what == Expired.DELIVERED_EVENTS) {
                    return update(db, "DELETE FROM outbox_event WHERE created_at < ? AND event_id IN (SELECT event_id"
                            + " FROM outbox_event WHERE created_at < ? ORDER BY created_at, event_id FETCH FIRST ? ROWS"
                            + " ONLY)", cutOff, cutOff, limit);
                }
                return what.deleteBatch(db, cutOff, limit);
            } catch (SQLException e) {
                throw new IllegalStateException(e);
            }
        });
        Map<UUID, String> after = states();
        for (Map.Entry<UUID, String> row : before.entrySet()) {
            if (!after.containsKey(row.getKey())) {
                note(row.getKey(), "cleanup deleted it in state " + row.getValue());
                if (!row.getValue().startsWith("DELIVERED")) {
                    violations.add("cleanup deleted " + describe(row.getKey()) + " in state " + row.getValue());
                }
            }
        }
    }

    private Map<UUID, String> states() throws SQLException {
        Map<UUID, String> states = new HashMap<>();
        try (PreparedStatement select = db.prepareStatement("SELECT event_id, state FROM outbox_event");
             ResultSet rs = select.executeQuery()) {
            while (rs.next()) {
                states.put(UUID.fromString(rs.getString(1)), rs.getString(2));
            }
        }
        return states;
    }

    /** An operator replays one delivered event with its own id (R9.3); it must be sent again. */
    /**
     * R7.7: the producer's database goes back to a backup taken before the newest version of one aggregate, while
     * the broker keeps the messages of that version. The version's row is gone and the next command records the same
     * version under a new event id: a fork, which consumers that applied the lost one must park, never absorb.
     */
    private void restore() throws SQLException {
        int first = random.nextInt(AGGREGATES);
        for (int a = 0; a < AGGREGATES; a++) {
            if (restore("a" + (first + a) % AGGREGATES)) {
                return;
            }
        }
    }

    private boolean restore(String aggregate) throws SQLException {
        long version = versions.getOrDefault(aggregate, 0L);
        Recorded newest = committed.values().stream()
                .filter(r -> r.aggregateId().equals(aggregate) && r.version() == version).findFirst().orElse(null);
        if (version < 2 || newest == null || !lastSentAt.containsKey(newest.id())
                || lastReplayedAt.containsKey(newest.id())) {
            return false; // only an event the broker has (sent at least once) and no replay is about to send again
        }
        UUID id = newest.id();
        boolean inFlight = publishers.stream().anyMatch(p -> p.claimed.stream().anyMatch(b -> b.stream()
                .anyMatch(e -> e.id().value().equals(id))) || p.sent.stream().anyMatch(b -> b.stream()
                .anyMatch(o -> o.event().id().value().equals(id))));
        if (inFlight) {
            return false;
        }
        update(db, "DELETE FROM outbox_event WHERE event_id = ?", id); // gone already if cleanup deleted it
        versions.put(aggregate, version - 1);
        lost.put(id, committed.remove(id));
        note(id, "lost in a restore from backup: its version will be recorded again under a new id");
        return true;
    }

    /** An operator's replay of one event comes due at once, whatever the rate. */
    private static final int OPERATOR_RATE = 100;

    private void replay() throws SQLException {
        UUID id = pick("SELECT event_id FROM outbox_event WHERE state = 'DELIVERED' ORDER BY event_id");
        if (id != null && !resend.replay(List.of(id), OPERATOR_RATE).eventIds().isEmpty()) {
            lastReplayedAt.put(id, ++sequence);
            note(id, "replayed");
        }
    }

    /** An operator repairs one parked event's body and resumes it with its own id (R6.6). */
    private void repair() throws SQLException {
        UUID id = pick("SELECT event_id FROM outbox_event WHERE state = 'PARKED' ORDER BY event_id");
        if (id != null) {
            resend.fix(id, "{}", null, 1);
            resend.resume(id);
            note(id, "repaired and resumed");
        }
    }

    private UUID pick(String sql) throws SQLException {
        List<UUID> ids = new ArrayList<>();
        try (PreparedStatement select = db.prepareStatement(sql); ResultSet rs = select.executeQuery()) {
            while (rs.next()) {
                ids.add(UUID.fromString(rs.getString(1)));
            }
        }
        return ids.isEmpty() ? null : ids.get(random.nextInt(ids.size()));
    }

    // --- The end: drain without new faults, then the invariants -------------------------------------------------

    private void drain() throws SQLException {
        for (int round = 0; round < 2_000 && !settled(); round++) {
            if (round % 5 == 0) {
                timePasses();
            }
            for (int i = 0; i < 60; i++) {
                int dice = random.nextInt(100);
                Publisher publisher = publishers.get(random.nextInt(publishers.size()));
                if (dice < 25) {
                    claim(publisher);
                } else if (dice < 50) {
                    send(publisher, false);
                } else if (dice < 70) {
                    confirm(publisher);
                } else if (dice < 97) {
                    for (String consumer : CONSUMERS) {
                        for (int n = 0; n < 10; n++) {
                            consume(consumer, false);
                        }
                    }
                } else {
                    repair();
                }
            }
        }
    }

    private boolean settled() throws SQLException {
        boolean queuesEmpty = queues.values().stream().allMatch(List::isEmpty);
        boolean inFlight = publishers.stream().anyMatch(p -> !p.claimed.isEmpty() || !p.sent.isEmpty());
        return queuesEmpty && !inFlight && count("outbox_event WHERE state <> 'DELIVERED'") == 0;
    }

    private void check() throws SQLException {
        if (!settled()) {
            violations.add("not settled after the drain: " + count("outbox_event WHERE state = 'PENDING'") + " pending, "
                    + count("outbox_event WHERE state = 'PARKED'") + " parked, messages queued "
                    + queues.values().stream().mapToInt(List::size).sum());
        }
        Map<String, List<long[]>> applied = new HashMap<>(); // consumer/aggregate -> [version, seq]
        Map<String, Integer> effects = new HashMap<>();
        Map<String, Long> appliedAt = new HashMap<>(); // consumer/event id -> seq of its (first) effect
        try (PreparedStatement select = db.prepareStatement("SELECT consumer, event_id, aggregate_id, aggregate_version,"
                + " seq FROM checker_effect ORDER BY seq"); ResultSet rs = select.executeQuery()) {
            while (rs.next()) {
                effects.merge(rs.getString(1) + "/" + UUID.fromString(rs.getString(2)), 1, Integer::sum);
                appliedAt.putIfAbsent(rs.getString(1) + "/" + UUID.fromString(rs.getString(2)), rs.getLong(5));
                applied.computeIfAbsent(rs.getString(1) + "/" + rs.getString(3), k -> new ArrayList<>())
                        .add(new long[] {rs.getLong(4), rs.getLong(5)});
            }
        }
        Set<String> parked = new HashSet<>();
        try (PreparedStatement select = db.prepareStatement("SELECT consumer, event_id FROM inbox_conflict");
             ResultSet rs = select.executeQuery()) {
            while (rs.next()) {
                parked.add(rs.getString(1) + "/" + UUID.fromString(rs.getString(2)));
            }
        }
        // Every event once per consumer that reads it, but where a restore forked a version (R7.7): of the lost
        // event and the new one at its version, a consumer applies the first it gets and parks the other.
        Map<String, Integer> atVersion = new HashMap<>();
        List<Recorded> every = new ArrayList<>(committed.values());
        every.addAll(lost.values());
        for (Recorded event : every) {
            for (String consumer : CONSUMERS) {
                if (reads(consumer, event.type()) && effects.getOrDefault(consumer + "/" + event.id(), 0) > 0) {
                    atVersion.merge(consumer + "/" + event.aggregateId() + "@" + event.version(), 1, Integer::sum);
                }
            }
        }
        Set<String> forked = new HashSet<>();
        lost.values().forEach(l -> forked.add(l.aggregateId() + "@" + l.version()));
        for (Recorded event : every) {
            for (String consumer : CONSUMERS) {
                if (!reads(consumer, event.type())) {
                    continue;
                }
                int times = effects.getOrDefault(consumer + "/" + event.id(), 0);
                boolean fork = forked.contains(event.aggregateId() + "@" + event.version());
                if (times > 1 || times == 0 && !fork) {
                    violations.add(consumer + " applied " + describe(event.id()) + " " + times + " times, not once");
                } else if (times == 0 && !parked.contains(consumer + "/" + event.id())) {
                    violations.add(consumer + " neither applied nor parked " + describe(event.id())
                            + ", an event of a forked version: a fork absorbed silently");
                }
            }
        }
        atVersion.forEach((key, count) -> {
            if (count > 1) {
                violations.add(key.substring(0, key.indexOf('/')) + " applied " + count + " events at version "
                        + key.substring(key.indexOf('/') + 1));
            }
        });
        // Strict types in version order, with no version missing: every earlier version the consumer reads applied
        // before it (R5.7).
        Map<String, String> typeAt = new HashMap<>(); // aggregate@version -> type, in the committed history
        committed.values().forEach(e -> typeAt.put(e.aggregateId() + "@" + e.version(), e.type()));
        for (Recorded event : committed.values()) {
            if (!STRICT_TYPES.contains(event.type())) {
                continue;
            }
            for (String consumer : CONSUMERS) {
                if (!reads(consumer, event.type())) {
                    continue;
                }
                List<long[]> seen = applied.getOrDefault(consumer + "/" + event.aggregateId(), List.of());
                long at = appliedAt.getOrDefault(consumer + "/" + event.id(), -1L); // a parked fork: never applied
                for (long earlier = 1; at >= 0 && earlier < event.version(); earlier++) {
                    long version = earlier;
                    if (!reads(consumer, typeAt.getOrDefault(event.aggregateId() + "@" + version, ""))) {
                        continue; // a version of a type it never receives
                    }
                    boolean before = seen.stream().anyMatch(v -> v[0] == version && v[1] < at);
                    if (!before) {
                        violations.add(consumer + " applied strict " + describe(event.id()) + " before version " + version
                                + " of its aggregate");
                    }
                }
            }
        }
        String explain = System.getProperty("checker.explain");
        if (explain != null) {
            every.stream().filter(e -> e.aggregateId().equals(explain)).sorted(java.util.Comparator
                    .comparingLong(Recorded::version)).forEach(e -> System.out.println("  " + (lost.containsKey(e.id())
                    ? "LOST " : "") + describe(e.id())));
        }
        long waiting = count("inbox_waiting");
        if (waiting > 0) {
            violations.add(waiting + " events still wait at a consumer after the drain: a stored successor was lost");
        }
        for (Map.Entry<UUID, Long> replay : lastReplayedAt.entrySet()) {
            if (lastSentAt.getOrDefault(replay.getKey(), 0L) < replay.getValue()) {
                violations.add("replayed " + describe(replay.getKey()) + " was never sent again");
            }
        }
    }

    /**
     * Nothing piles up: once everything is past retention, cleanup leaves no hold and no inbox mark of a consumer
     * that sees every version of its aggregates (R5.6, R8.1). The consumer that reads only the independent type
     * keeps its marks above its high-water mark (a known limit): they are counted, not checked.
     */
    private void retentionEmptiesTheInbox() throws SQLException {
        for (int i = 0; i < 4; i++) {
            timePasses(200);
        }
        OffsetDateTime now = Sql.clock(db);
        for (int round = 0; round < 1_000; round++) {
            int deleted = update(db, InboxMarks.DELETE_PROCESSED_BATCH, now, now, 1_000)
                    + update(db, InboxMarks.DELETE_EXPIRED_HOLDS_BATCH, now.minus(MARK_RETENTION), now.minus(MARK_RETENTION), 1_000);
            if (deleted == 0) {
                break;
            }
        }
        long marks = count("processed_event WHERE consumer <> '" + INDEPENDENT_ONLY + "'");
        long holdsLeft = count("inbox_hold");
        if (marks + holdsLeft > 0) {
            violations.add("after their retention, cleanup left " + marks + " inbox marks and " + holdsLeft + " holds");
        }
        keptAboveHighWater = count("processed_event WHERE consumer = '" + INDEPENDENT_ONLY + "'");
    }

    // --- Helpers --------------------------------------------------------------------------------------------

    private long count(String from) throws SQLException {
        try (PreparedStatement select = db.prepareStatement("SELECT COUNT(*) FROM " + from);
             ResultSet rs = select.executeQuery()) {
            rs.next();
            return rs.getLong(1);
        }
    }

    private static int update(Connection c, String sql, Object... values) throws SQLException {
        try (PreparedStatement statement = c.prepareStatement(sql)) {
            for (int i = 0; i < values.length; i++) {
                statement.setObject(i + 1, values[i]);
            }
            return statement.executeUpdate();
        }
    }

    private void note(UUID id, String what) {
        if (id == null) {
            return;
        }
        trail.computeIfAbsent(id, k -> new ArrayList<>()).add("#" + steps + " " + what);
    }

    /** An event with what happened to it, for a failure message that explains itself. */
    private String describe(UUID id) {
        Recorded event = committed.containsKey(id) ? committed.get(id) : lost.get(id);
        String name = event == null ? id.toString() : event.type() + " " + event.aggregateId() + "@" + event.version()
                + " (" + id + ")";
        List<String> story = trail.getOrDefault(id, List.of());
        return name + " [" + String.join("; ", story.subList(Math.max(0, story.size() - 12), story.size())) + "]";
    }

    public void close() throws SQLException {
        for (Publisher publisher : publishers) {
            publisher.connection.close();
        }
        db.close();
    }
}
