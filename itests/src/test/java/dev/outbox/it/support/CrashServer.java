package dev.outbox.it.support;

import java.nio.file.Path;

/**
 * The Liberty server the process-level suites share, which the tests start, halt and kill themselves: in the
 * PostgreSQL run {@code outbox-it-crash} with its own database ({@code outbox_crash}), in the MariaDB run
 * {@code outbox-it-crash-mariadb} with a database of the same name, in the H2 run
 * {@code outbox-it-crash-h2} with its own H2 file; both with short leases (itests/src/test/liberty-crash/crash.xml).
 * One place for its name, address and database.
 */
public final class CrashServer {

    private CrashServer() {
    }

    public static ExampleService service() {
        return new ExampleService(Settings.required("it.crash.base.url"));
    }

    public static LibertyProcess process(ExampleService service) {
        return new LibertyProcess(Path.of(Settings.required("it.wlp")), System.getProperty("it.crash.server", "outbox-it-crash"),
                service);
    }

    /**
     * The second crash server on the same database ({@code outbox-it-crash-b}, in the MariaDB run
     * {@code outbox-it-crash-b-mariadb}), for the suites that run two servers on one table.
     */
    public static ExampleService secondService() {
        return new ExampleService(Settings.required("it.crash.b.base.url"));
    }

    public static LibertyProcess secondProcess(ExampleService service) {
        return new LibertyProcess(Path.of(Settings.required("it.wlp")), System.getProperty("it.crash.b.server",
                "outbox-it-crash-b"), service);
    }

    public static String jdbcUrl() {
        return Settings.required("it.crash.jdbc.url");
    }

    public static OutboxDatabase database() {
        return new OutboxDatabase(jdbcUrl(), System.getProperty("it.crash.jdbc.user", "outbox"),
                System.getProperty("it.crash.jdbc.password", "outbox"));
    }
}
