package dev.outbox.it.support;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A Liberty server run as a separate process, so a test can let it halt at a failpoint (or kill it) and start
 * it again: the process-level side of the fault-injection suite (R7.2).
 */
public final class LibertyProcess implements ServerProcess {

    /**
     * The override {@link #use} writes. Liberty applies override files in name order, the last one winning, so
     * this name sorts after the suites' own (itests.xml, crash.xml).
     */
    static final String SETTINGS_FILE = "run.xml";

    private final Path wlp;
    private final String name;
    private static final Pattern STARTED_PID = Pattern.compile("started with process ID (\\d+)");
    private final ExampleService service;
    /**
     * Whether the JVM runs with its full JIT. The fault suites start a server some 150 times a build, and on two
     * cores the optimising compiler slows each start by a quarter (13 s against 10 s measured) while it speeds
     * nothing they assert; only the benchmark, which measures throughput, needs it.
     */
    private final boolean fullJit;
    /** The JVM this object last launched: the pid file may still name an older, dead one. */
    private volatile long pid = -1;
    /** Environment variables for the next start (the benchmark's OTEL_* settings for a traced run). */
    private volatile Map<String, String> environment = Map.of();

    public LibertyProcess(Path wlp, String name, ExampleService service) {
        this(wlp, name, service, false);
    }

    private LibertyProcess(Path wlp, String name, ExampleService service, boolean fullJit) {
        this.wlp = wlp;
        this.name = name;
        this.service = service;
        this.fullJit = fullJit;
    }

    /** The same server started with the JVM's full JIT, for a test that measures speed (the benchmark). */
    public LibertyProcess measured() {
        return new LibertyProcess(wlp, name, service, true);
    }

    /** Environment variables the server gets from its next start on; an empty map for none. */
    public void environment(Map<String, String> variables) {
        environment = Map.copyOf(variables);
    }

    public Path serverDir() {
        return wlp.resolve("usr/servers").resolve(name);
    }

    @Override
    public void use(Map<String, String> settings) throws IOException {
        if (settings.isEmpty()) {
            deleteOverride(SETTINGS_FILE);
            return;
        }
        StringBuilder xml = new StringBuilder("<server>");
        settings.forEach((name, value) -> xml.append("<variable name=\"").append(name).append("\" value=\"")
                .append(value).append("\"/>"));
        writeOverride(SETTINGS_FILE, xml.append("</server>").toString());
    }

    @Override
    public void start() throws IOException, InterruptedException {
        launch();
        service.awaitAnswering(name, Duration.ofSeconds(90));
    }

    /**
     * Starts the server without waiting for the example: for a server expected to halt on its own. Remembers
     * the JVM that {@code server start} reports, so a later {@link #awaitExit} watches this one and never a
     * predecessor named by a stale pid file. A JVM that halted while starting leaves no pid: it counts as gone.
     */
    @Override
    public void launch() throws IOException, InterruptedException {
        if (running()) {
            throw new IllegalStateException("server " + name + " is still running (pid " + pid + ")");
        }
        String output = run("start");
        Matcher started = STARTED_PID.matcher(output);
        pid = started.find() ? Long.parseLong(started.group(1)) : -1;
    }

    @Override
    public void stop() throws IOException, InterruptedException {
        run("stop");
        if (!awaitExit(Duration.ofSeconds(60))) {
            kill();
            awaitExit(Duration.ofSeconds(10));
        }
    }

    /** Whether the JVM this object launched is alive. */
    public boolean running() {
        return process().map(ProcessHandle::isAlive).orElse(false);
    }

    @Override
    public boolean awaitExit(Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            if (process().map(p -> !p.isAlive()).orElse(true)) {
                return true;
            }
            Thread.sleep(100);
        }
        return false;
    }

    @Override
    public void kill() throws InterruptedException {
        process().ifPresent(ProcessHandle::destroyForcibly);
        awaitExit(Duration.ofSeconds(10));
    }

    public void writeOverride(String file, String xml) throws IOException {
        Files.writeString(serverDir().resolve("configDropins/overrides").resolve(file), xml);
    }

    public void deleteOverride(String file) throws IOException {
        Files.deleteIfExists(serverDir().resolve("configDropins/overrides").resolve(file));
    }

    private Optional<ProcessHandle> process() {
        return pid < 0 ? Optional.empty() : ProcessHandle.of(pid);
    }

    /** Runs {@code bin/server <action> <name>} and returns what it printed. */
    private String run(String action) throws IOException, InterruptedException {
        Path out = serverDir().resolve("server-" + action + ".out");
        ProcessBuilder builder = new ProcessBuilder(wlp.resolve("bin/server").toString(), action, name)
                .redirectErrorStream(true)
                .redirectOutput(out.toFile());
        builder.environment().putAll(environment);
        if (!fullJit) {
            // Liberty's server script adds JVM_ARGS to the options of jvm.options (which the benchmark writes).
            builder.environment().merge("JVM_ARGS", "-XX:TieredStopAtLevel=1", (mine, c1) -> mine + " " + c1);
        }
        Process process = builder.start();
        if (!process.waitFor(120, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            throw new IllegalStateException("server " + action + " " + name + " took over 120 s");
        }
        return Files.readString(out);
    }
}
