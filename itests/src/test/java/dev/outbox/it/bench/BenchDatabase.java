package dev.outbox.it.bench;

import dev.outbox.internal.persistence.Dialect;
import dev.outbox.internal.persistence.MariaDbDialect;
import dev.outbox.internal.persistence.PostgreSqlDialect;
import dev.outbox.internal.persistence.RecordedRow;

/**
 * What the benchmark does differently per database, in one place: the dialect whose SQL B0 runs, the bulk loads
 * of pending and delivered rows (a million rows through the fixture's one-row insert would take longer than the
 * drain they prepare), and the statement that refreshes the planner's statistics. The rows are as the recorder
 * writes them: 1000 aggregates, versions in order, each event recorded a microsecond after the one before (oldest
 * first, all due now), a 170-byte payload.
 */
enum BenchDatabase {

    POSTGRESQL {
        @Override
        Dialect dialect() {
            return new PostgreSqlDialect();
        }

        @Override
        String insertPending(String table, String tag, int from, int until, int events) {
            return "INSERT INTO " + table + " (" + RecordedRow.COLUMNS + ")"
                    + " SELECT gen_random_uuid(), 'Bench', '" + tag + "-' || (g % " + AGGREGATES + "), g / " + AGGREGATES + " + 1,"
                    + " 'BenchNoted', 1,"
                    + " '{\"n\":' || g || ',\"pad\":\"' || repeat('x', 150) || '\"}', NULL,"
                    + " now() - (" + events + " - g) * interval '1 microsecond', 'PENDING', 0,"
                    + " now() - (" + events + " - g) * interval '1 microsecond', 0,"
                    + " NULL FROM generate_series(" + from + ", " + (until - 1) + ") g";
        }

        @Override
        String insertHistory(int rows) {
            return "INSERT INTO outbox_event (" + RecordedRow.COLUMNS + ", broker_message_id, claimed_by)"
                    + " SELECT gen_random_uuid(), 'History', 'h-' || (g % 100000), g / 100000 + 1, 'HistoryNoted', 1,"
                    + " '{\"pad\":\"' || repeat('y', 150) || '\"}', NULL, now(), 'DELIVERED', 1, now(), 1, now(),"
                    + " 'bench', 'bench' FROM generate_series(0, " + (rows - 1) + ") g";
        }

        @Override
        String analyze() {
            return "VACUUM ANALYZE outbox_event"; // as autovacuum leaves a table in production
        }
    },

    /** MariaDB's built-in sequence tables ({@code seq_0_to_N}) stand in for generate_series: test data only. */
    MARIADB {
        @Override
        Dialect dialect() {
            return new MariaDbDialect();
        }

        @Override
        String insertPending(String table, String tag, int from, int until, int events) {
            return "INSERT INTO " + table + " (" + RecordedRow.COLUMNS + ")"
                    + " SELECT UUID(), 'Bench', CONCAT('" + tag + "-', seq % " + AGGREGATES + "),"
                    + " seq DIV " + AGGREGATES + " + 1, 'BenchNoted', 1,"
                    + " CONCAT('{\"n\":', seq, ',\"pad\":\"', REPEAT('x', 150), '\"}'), NULL,"
                    + " NOW(6) - INTERVAL (" + events + " - seq) MICROSECOND, 'PENDING', 0,"
                    + " NOW(6) - INTERVAL (" + events + " - seq) MICROSECOND, 0,"
                    + " NULL FROM seq_" + from + "_to_" + (until - 1);
        }

        @Override
        String insertHistory(int rows) {
            return "INSERT INTO outbox_event (" + RecordedRow.COLUMNS + ", broker_message_id, claimed_by)"
                    + " SELECT UUID(), 'History', CONCAT('h-', seq % 100000), seq DIV 100000 + 1, 'HistoryNoted', 1,"
                    + " CONCAT('{\"pad\":\"', REPEAT('y', 150), '\"}'), NULL, NOW(6), 'DELIVERED', 1, NOW(6), 1,"
                    + " NOW(6), 'bench', 'bench' FROM seq_0_to_" + (rows - 1);
        }

        @Override
        String analyze() {
            return "ANALYZE TABLE outbox_event";
        }
    };

    /**
     * How many strict aggregates a backlog spreads over, round by round (every aggregate's version 1, then 2, ...):
     * 1,000 by default, so a backlog of 100,000 is 100 versions each and two workers' batches of 500 hold every
     * aggregate between them (issue 44: the case where a second worker's claims walk the first's waiting versions);
     * -Dit.bench.aggregates=20000 is the spread-out case.
     */
    static final int AGGREGATES = Integer.getInteger("it.bench.aggregates", 1000);

    abstract Dialect dialect();

    /** The whole backlog of {@code events} pending rows in outbox_event. */
    final String insertPending(String tag, int events) {
        return insertPending("outbox_event", tag, 0, events, events);
    }

    /**
     * Rows {@code from} (inclusive) to {@code until} of a backlog of {@code events} into {@code table}, an outbox
     * table or one of its shape: a backlog loaded in parts is the same rows as one loaded at once.
     */
    abstract String insertPending(String table, String tag, int from, int until, int events);

    abstract String insertHistory(int rows);

    abstract String analyze();
}
