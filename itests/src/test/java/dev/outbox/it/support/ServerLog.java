package dev.outbox.it.support;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** The server's messages.log, for tests that check what was (or was never) logged. */
public final class ServerLog {

    private ServerLog() {
    }

    public static String text() {
        Path log = Path.of(Settings.required("it.server.dir"), "logs", "messages.log");
        try {
            return Files.readString(log);
        } catch (IOException e) {
            throw new UncheckedIOException("no server log at " + log, e);
        }
    }
}
