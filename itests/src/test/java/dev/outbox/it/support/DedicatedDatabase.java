package dev.outbox.it.support;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * A database server of this run's database (PostgreSQL or MariaDB) apart from the one the suites share: its own
 * folder and port, started fresh with the database's durable settings by the project's script
 * ({@code scripts/pg-test-cluster.sh}, {@code scripts/mariadb-test-instance.sh}), so halting it or measuring on it
 * touches no other suite's server. DatabaseRestartIT and the benchmark's durable rows use it in turn, each starting
 * and stopping it. The run's {@code it.restart.*} properties name it.
 */
public final class DedicatedDatabase {

    private final String script = Settings.required("it.restart.script");
    private final String dir = Settings.required("it.restart.dir");
    private final String port = Settings.required("it.restart.port");

    /** The JDBC URL of its crash-server database. */
    public String jdbcUrl() {
        return Settings.required("it.restart.jdbc.url");
    }

    /** A view of its tables as the outbox user sees them. */
    public OutboxDatabase database() {
        return new OutboxDatabase(jdbcUrl(), "outbox", "outbox");
    }

    /** The crash server's variable that points it at this server instead of the run's own (its port). */
    public Map<String, String> serverVariables() {
        return Map.of(Settings.required("it.db") + ".port", port);
    }

    /** Starts it fresh, durable: fsync and synchronous commits on (PostgreSQL), the redo log flushed per commit (MariaDB). */
    public void startDurable() throws IOException, InterruptedException {
        run("start", dir, port, "durable");
    }

    /** Stops it hard ({@code immediate} or {@code sigkill}), its data kept for {@link #resume}. */
    public void halt(String how) throws IOException, InterruptedException {
        run("halt", dir, how);
    }

    public void resume() throws IOException, InterruptedException {
        run("resume", dir);
    }

    public void stop() throws IOException, InterruptedException {
        run("stop", dir);
    }

    private void run(String... arguments) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of(script));
        command.addAll(List.of(arguments));
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        if (!process.waitFor(120, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            throw new IllegalStateException(String.join(" ", command) + " did not finish within 120 s");
        }
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        System.out.print(output);
        if (process.exitValue() != 0) {
            throw new IllegalStateException(String.join(" ", command) + " failed: " + output);
        }
    }
}
