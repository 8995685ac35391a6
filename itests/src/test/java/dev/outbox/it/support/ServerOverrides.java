package dev.outbox.it.support;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

/**
 * Changes the running Arquillian server's configuration the way an operator would: a file in
 * {@code configDropins/overrides}, then waits until the server says it applied it (CWWKG0017I). The itests pom
 * deletes leftovers of a killed test before the next run.
 */
public final class ServerOverrides {

    private ServerOverrides() {
    }

    public static void write(String file, String xml) {
        int before = updates();
        try {
            Files.writeString(path(file), xml);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the server override " + file, e);
        }
        Eventually.await(Duration.ofSeconds(20), "the server applied " + file, ServerOverrides::updates, n -> n > before);
    }

    public static void delete(String file) {
        int before = updates();
        try {
            if (!Files.deleteIfExists(path(file))) {
                return;
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot delete the server override " + file, e);
        }
        Eventually.await(Duration.ofSeconds(20), "the server dropped " + file, ServerOverrides::updates, n -> n > before);
    }

    private static Path path(String file) {
        return Path.of(Settings.required("it.server.dir"), "configDropins", "overrides", file);
    }

    /** How many configuration updates the server has completed so far. */
    private static int updates() {
        String log = ServerLog.text();
        int count = 0;
        for (int at = log.indexOf("CWWKG0017I"); at >= 0; at = log.indexOf("CWWKG0017I", at + 1)) {
            count++;
        }
        return count;
    }
}
