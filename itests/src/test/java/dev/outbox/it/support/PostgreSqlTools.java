package dev.outbox.it.support;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/** pg_dump and pg_restore of the Debian package, against the test cluster: a real backup and a real restore. */
public final class PostgreSqlTools {

    private final String host;
    private final String port;
    private final String database;

    public PostgreSqlTools(String jdbcUrl) {
        // jdbc:postgresql://host:port/database
        String rest = jdbcUrl.substring("jdbc:postgresql://".length());
        host = rest.substring(0, rest.indexOf(':'));
        port = rest.substring(rest.indexOf(':') + 1, rest.indexOf('/'));
        database = rest.substring(rest.indexOf('/') + 1);
    }

    /** A custom-format, data-only dump of the given tables. */
    public void dump(Path file, String... tables) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of(tool("pg_dump"), "-h", host, "-p", port, "-U", "outbox",
                "-d", database, "--data-only", "-Fc", "-f", file.toString()));
        for (String table : tables) {
            command.add("-t");
            command.add(table);
        }
        run(command);
    }

    /** Loads a data-only dump into tables the caller emptied. */
    public void restore(Path file) throws IOException, InterruptedException {
        run(List.of(tool("pg_restore"), "-h", host, "-p", port, "-U", "outbox", "-d", database, "--data-only",
                "--single-transaction", file.toString()));
    }

    private static String tool(String name) throws IOException {
        try (Stream<Path> versions = Files.list(Path.of("/usr/lib/postgresql"))) {
            return versions.map(v -> v.resolve("bin").resolve(name)).filter(Files::isExecutable)
                    .max(Comparator.comparing(Path::toString))
                    .orElseThrow(() -> new IllegalStateException(name + " not found under /usr/lib/postgresql/*/bin"))
                    .toString();
        }
    }

    private static void run(List<String> command) throws IOException, InterruptedException {
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        if (!process.waitFor(120, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            throw new IllegalStateException(command.get(0) + " did not finish within 120 s");
        }
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (process.exitValue() != 0) {
            throw new IllegalStateException(String.join(" ", command) + " failed: " + output);
        }
    }
}
