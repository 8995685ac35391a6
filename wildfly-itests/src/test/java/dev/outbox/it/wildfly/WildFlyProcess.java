package dev.outbox.it.wildfly;

import dev.outbox.it.support.ExampleService;
import dev.outbox.it.support.ServerProcess;

import java.io.IOException;
import java.lang.ProcessBuilder.Redirect;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A WildFly server ({@code bin/standalone.sh -c standalone-full.xml}) run as a child process of the test, so a
 * failpoint can halt it and the test can start it again. Settings are system properties on its command line:
 * MicroProfile Config reads them before the CLI script's config source.
 */
public final class WildFlyProcess implements ServerProcess {

    private final Path home;
    private final int portOffset;
    private final Map<String, String> baseSettings;
    private final ExampleService service;
    private Map<String, String> settings = Map.of();
    private Process script;
    /**
     * The script's process tree as seen so far: standalone.sh runs the server's JVM as its child, and a child
     * whose parent died first is no longer among the script's descendants, so the test remembers it.
     */
    private final Set<ProcessHandle> tree = new HashSet<>();

    /**
     * @param baseSettings system properties of every start (the database's address, short leases)
     */
    public WildFlyProcess(Path home, int portOffset, Map<String, String> baseSettings, ExampleService service) {
        this.home = home;
        this.portOffset = portOffset;
        this.baseSettings = Map.copyOf(baseSettings);
        this.service = service;
    }

    @Override
    public void use(Map<String, String> settings) {
        this.settings = Map.copyOf(settings);
    }

    @Override
    public void start() throws IOException {
        launch();
        // WildFly deploys the EAR after it started: slower than Liberty's dropins here
        service.awaitAnswering("WildFly at " + home, Duration.ofSeconds(120));
    }

    @Override
    public void launch() throws IOException {
        if (script != null && tree().stream().anyMatch(ProcessHandle::isAlive)) {
            // An old JVM would answer the next start's readiness probe and fail its requests with 503s.
            throw new IllegalStateException("WildFly at " + home + " is still running (" + tree() + ")");
        }
        List<String> command = new ArrayList<>(List.of(home.resolve("bin/standalone.sh").toString(),
                "-c", "standalone-full.xml", "-b=127.0.0.1", "-bmanagement=127.0.0.1",
                "-Djboss.socket.binding.port-offset=" + portOffset));
        baseSettings.forEach((name, value) -> command.add("-D" + name + "=" + value));
        settings.forEach((name, value) -> command.add("-D" + name + "=" + value));
        Path console = home.resolve("standalone/log/console.out");
        Files.createDirectories(console.getParent());
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(Redirect.appendTo(console.toFile()));
        // C1 only, as LibertyProcess: the crash windows start the server over and over and measure no speed.
        builder.environment().put("JAVA_OPTS", "-Xms64m -Xmx512m -XX:TieredStopAtLevel=1");
        script = builder.start();
        tree.clear();
        tree.add(script.toHandle());
    }

    /** SIGTERM to the server's JVM: WildFly shuts down cleanly on it. */
    @Override
    public void stop() throws InterruptedException {
        if (script == null) {
            return;
        }
        tree().forEach(ProcessHandle::destroy);
        if (!awaitExit(Duration.ofSeconds(60))) {
            kill();
        }
    }

    @Override
    public boolean awaitExit(Duration timeout) throws InterruptedException {
        if (script == null) {
            return true;
        }
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            if (tree().stream().noneMatch(ProcessHandle::isAlive)) {
                return true;
            }
            Thread.sleep(100);
        }
        return false;
    }

    @Override
    public void kill() throws InterruptedException {
        if (script == null) {
            return;
        }
        tree().forEach(ProcessHandle::destroyForcibly);
        awaitExit(Duration.ofSeconds(10));
    }

    /** The script and every process it started that this object has seen, alive or not. */
    private Set<ProcessHandle> tree() {
        script.descendants().forEach(tree::add);
        return Set.copyOf(tree);
    }
}
