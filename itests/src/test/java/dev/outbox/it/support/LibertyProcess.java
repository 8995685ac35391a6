package dev.outbox.it.support;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

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

    /**
     * The JVM this test JVM last launched for each server directory, shared by every object of one server (the
     * benchmark's {@link #measured} is a second one): its pid is what {@link #awaitExit} watches and
     * {@link #stop} signals.
     */
    private static final Map<Path, ProcessHandle> LAUNCHED = new ConcurrentHashMap<>();

    private final Path wlp;
    private final String name;
    private final ExampleService service;
    /**
     * Whether the JVM runs with its full JIT. The fault suites start a server some 150 times a build, and on two
     * cores the optimising compiler slows each start by a quarter (13 s against 10 s measured) while it speeds
     * nothing they assert; only the benchmark, which measures throughput, needs it.
     */
    private final boolean fullJit;
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
        if (!running()) {
            // The JVM launched exited (a second instance refuses to run) and something else answered for it.
            throw new IllegalStateException("server " + name + " answered, but not the JVM just launched: see "
                    + serverDir().resolve("logs/console.log"));
        }
    }

    /**
     * Starts the server and returns at once, before it has started: for a server expected to halt on its own, or
     * one a test waits for in its own way. Runs {@code server run}, whose script execs the server's JVM, so the
     * process this test JVM holds is the server itself. {@code server start} would launch two more JVMs to ask
     * whether it runs and to wait for it, some seconds of two busy cores on each of the build's ~150 starts.
     */
    @Override
    public void launch() throws IOException, InterruptedException {
        if (running()) {
            throw new IllegalStateException("server " + name + " is still running (pid " + process().orElseThrow().pid()
                    + ")");
        }
        if (process().isEmpty()) {
            // This test JVM's first launch of it: a server an earlier JVM (another database's suite, a build that
            // died) left running would make this one refuse to run, so it is asked to stop by name first.
            run("stop");
        }
        Path console = serverDir().resolve("logs/console.log"); // where server start would have put it
        Files.createDirectories(console.getParent());
        ProcessBuilder builder = new ProcessBuilder(wlp.resolve("bin/server").toString(), "run", name)
                .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")))
                .redirectErrorStream(true)
                .redirectOutput(console.toFile());
        LAUNCHED.put(serverDir(), configure(builder).start().toHandle());
    }

    /**
     * Stops the server as {@code server stop} does, by the signal a container runtime sends (SIGTERM, which
     * Liberty's shutdown hook turns into the same orderly stop, quiesce included) instead of a JVM launched to ask
     * it; a server this test JVM has not launched yet (one another JVM may have left running) is asked by name.
     * Kills it after a minute.
     */
    @Override
    public void stop() throws IOException, InterruptedException {
        Optional<ProcessHandle> launched = process();
        if (launched.isEmpty()) {
            run("stop");
        } else if (launched.get().isAlive()) {
            launched.get().destroy();
        }
        if (!awaitExit(Duration.ofSeconds(60))) {
            kill();
            awaitExit(Duration.ofSeconds(10));
        }
    }

    /** Whether the JVM this test JVM last launched for this server is alive. */
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
        return Optional.ofNullable(LAUNCHED.get(serverDir()));
    }

    /** Runs {@code bin/server <action> <name>} and returns what it printed. */
    private String run(String action) throws IOException, InterruptedException {
        Path out = serverDir().resolve("server-" + action + ".out");
        ProcessBuilder builder = new ProcessBuilder(wlp.resolve("bin/server").toString(), action, name)
                .redirectErrorStream(true)
                .redirectOutput(out.toFile());
        Process process = configure(builder).start();
        if (!process.waitFor(120, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            throw new IllegalStateException("server " + action + " " + name + " took over 120 s");
        }
        return Files.readString(out);
    }

    /** The environment of every server command: this object's variables and its JIT. */
    private ProcessBuilder configure(ProcessBuilder builder) {
        builder.environment().putAll(environment);
        if (!fullJit) {
            // Liberty's server script adds JVM_ARGS to the options of jvm.options (which the benchmark writes).
            builder.environment().merge("JVM_ARGS", "-XX:TieredStopAtLevel=1", (mine, c1) -> mine + " " + c1);
        }
        return builder;
    }
}
