package dev.outbox.it.support;

import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.TestWatcher;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * When a test fails, prints the end of the server's messages.log: Liberty answers a broken deployment with a
 * plain 500, and the real cause is only in that file.
 */
public final class ServerLogOnFailure implements TestWatcher {

    private static final int LINES = 60;

    @Override
    public void testFailed(ExtensionContext context, Throwable cause) {
        Path log = Path.of(Settings.required("it.server.dir"), "logs", "messages.log");
        try {
            List<String> lines = Files.readAllLines(log);
            System.err.println("---- last " + LINES + " lines of " + log + " after " + context.getDisplayName());
            lines.subList(Math.max(0, lines.size() - LINES), lines.size()).forEach(System.err::println);
        } catch (IOException e) {
            System.err.println("---- no server log at " + log + ": " + e);
        }
    }
}
