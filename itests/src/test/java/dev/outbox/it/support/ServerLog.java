package dev.outbox.it.support;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** The server's messages.log, for tests that check what was (or was never) logged. */
public final class ServerLog {

    private ServerLog() {
    }

    /** messages.log, console.log, trace and FFDC files together: everything the server wrote about itself. */
    public static String everything() {
        StringBuilder all = new StringBuilder();
        Path logs = Path.of(Settings.required("it.server.dir"), "logs");
        try (var files = Files.walk(logs)) {
            for (Path file : files.filter(Files::isRegularFile).toList()) {
                all.append(Files.readString(file, java.nio.charset.StandardCharsets.ISO_8859_1));
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the server logs under " + logs, e);
        }
        return all.toString();
    }

    /** The Arquillian server's messages.log. */
    public static String text() {
        return messages(Path.of(Settings.required("it.server.dir")));
    }

    /**
     * The lines of a server's messages.log so far, none while there is no log yet (a start being watched from its
     * first line): read like {@link #messages}, so a line still being written never fails the read.
     */
    public static java.util.stream.Stream<String> linesSoFar(Path serverDir) {
        Path log = serverDir.resolve("logs").resolve("messages.log");
        return Files.exists(log) ? messages(serverDir).lines() : java.util.stream.Stream.empty();
    }

    /** The messages.log of the Liberty server in {@code serverDir} (a server the test starts itself). */
    public static String messages(Path serverDir) {
        Path log = serverDir.resolve("logs").resolve("messages.log");
        try {
            // ISO-8859-1: a line the server is still writing may end inside a multi-byte character
            return Files.readString(log, java.nio.charset.StandardCharsets.ISO_8859_1);
        } catch (IOException e) {
            throw new UncheckedIOException("no server log at " + log, e);
        }
    }
}
