package dev.outbox.it.support;

import java.nio.file.Files;
import java.time.Duration;
import java.util.Optional;

import static dev.outbox.it.support.Eventually.await;

/**
 * A start of a process-level Liberty server with a configuration override that the application is expected to
 * refuse (the start-refusal suites: a datasource outside the transaction, a lossy connection factory, a channel that
 * commits offsets by itself). It watches the new messages.log for the refusal or for the application's start, and
 * puts the server back as it was afterwards.
 */
public final class StartAttempt {

    /** Liberty's line for an application that started. */
    public static final String STARTED = "CWWKZ0001I";

    private final LibertyProcess server;
    private final String override;

    public StartAttempt(LibertyProcess server, String override) {
        this.server = server;
        this.override = override;
    }

    /** Starts with {@code xml} as the override and answers the first line naming {@code refusal} or the start. */
    public String firstOutcome(String xml, String refusal) throws Exception {
        server.deleteOverride("failpoint.xml");
        server.writeOverride(override, xml);
        Files.deleteIfExists(server.serverDir().resolve("logs/messages.log")); // an earlier start's lines are no answer
        server.launch(); // no readiness to wait for: the application is expected not to start
        return await(Duration.ofSeconds(120), "the start-up refusal, or the application started",
                () -> ServerLog.linesSoFar(server.serverDir())
                        .filter(line -> line.contains(refusal) || line.contains(STARTED)).findFirst(),
                Optional::isPresent).orElseThrow();
    }

    /** How often the application started since {@link #firstOutcome}. */
    public long applicationStarts() {
        return ServerLog.linesSoFar(server.serverDir()).filter(line -> line.contains(STARTED)).count();
    }

    /** Stops the server and removes the override. */
    public void restore() throws Exception {
        server.stop();
        server.kill();
        server.deleteOverride(override);
    }
}
