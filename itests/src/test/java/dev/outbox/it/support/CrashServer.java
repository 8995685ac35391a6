package dev.outbox.it.support;

import java.nio.file.Path;

/**
 * The Liberty server the process-level suites share: {@code outbox-it-crash}, with its own PostgreSQL database
 * ({@code outbox_crash}) and short leases (itests/src/test/liberty-crash/crash.xml), which the tests start, halt
 * and kill themselves. One place for its name, address and database.
 */
public final class CrashServer {

    private CrashServer() {
    }

    public static ExampleService service() {
        return new ExampleService(Settings.required("it.crash.base.url"));
    }

    public static LibertyProcess process(ExampleService service) {
        return new LibertyProcess(Path.of(Settings.required("it.wlp")), "outbox-it-crash", service);
    }

    public static String jdbcUrl() {
        return Settings.required("it.crash.jdbc.url");
    }

    public static OutboxDatabase database() {
        return new OutboxDatabase(jdbcUrl(), "outbox", "outbox");
    }
}
