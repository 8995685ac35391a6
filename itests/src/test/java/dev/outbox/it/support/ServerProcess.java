package dev.outbox.it.support;

import java.io.IOException;
import java.time.Duration;
import java.util.Map;

/**
 * An application server run as a separate process, so a test can let it halt at a failpoint (or kill it) and
 * start it again: the process-level side of the fault-injection suite (R7.2). Open Liberty ({@link LibertyProcess})
 * and WildFly (the wildfly-itests module) run the same crash scenarios through it.
 */
public interface ServerProcess {

    /**
     * MicroProfile Config settings for the starts from now on, on top of the server's own configuration (Liberty:
     * a configDropins override; WildFly: system properties). An empty map clears them.
     */
    void use(Map<String, String> settings) throws IOException;

    /** Starts the server and waits until the example answers over HTTP. */
    void start() throws IOException, InterruptedException;

    /**
     * Starts the server without waiting for it: for a server expected to halt on its own. Returns before the JVM
     * has started, so a caller's wait includes the start-up.
     */
    void launch() throws IOException, InterruptedException;

    /** A clean stop, waiting until the JVM is gone. */
    void stop() throws IOException, InterruptedException;

    /** Waits for the process to end on its own (a failpoint halts it); false if it is still alive. */
    boolean awaitExit(Duration timeout) throws InterruptedException;

    /** SIGKILL, for a server that must not linger after a failed test. */
    void kill() throws InterruptedException;
}
