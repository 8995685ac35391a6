package dev.outbox.internal.protocol;

import dev.outbox.internal.persistence.Dialect;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.function.Supplier;

/** One checker run from the system properties ({@code checker.*}), printed with its seed (for H2 and PostgreSQL). */
public final class ProtocolCheckerRun {

    private ProtocolCheckerRun() {
    }

    public static ProtocolChecker.Result run(Supplier<Connection> connections, Dialect dialect) throws SQLException {
        long seed = Long.getLong("checker.seed", System.nanoTime());
        int steps = Integer.getInteger("checker.steps", Integer.MAX_VALUE);
        Duration budget = Duration.ofSeconds(Long.getLong("checker.seconds", 30));
        ProtocolChecker.Mutation mutation = ProtocolChecker.Mutation.valueOf(
                System.getProperty("checker.mutation", "NONE"));
        System.out.println("protocol checker on " + dialect.name() + ": seed " + seed + ", mutation " + mutation);
        ProtocolChecker checker = new ProtocolChecker(connections, dialect, seed, mutation);
        try {
            ProtocolChecker.Result result = checker.run(steps, budget);
            System.out.println("protocol checker on " + dialect.name() + ": " + result.steps() + " steps, "
                    + result.events() + " events, " + result.restoredAway() + " events lost to restores from backup, "
                    + result.conflictsParked() + " conflicts parked by consumers, "
                    + result.violations().size() + " violations, "
                    + result.keptAboveHighWater() + " marks kept above the high-water mark of the consumer that reads"
                    + " only the independent type (a known limit); replay with "
                    + result.replay());
            result.violations().stream().limit(20).forEach(v -> System.out.println("  violation: " + v));
            return result;
        } finally {
            checker.close();
        }
    }
}
