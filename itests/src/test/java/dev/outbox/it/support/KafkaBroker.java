package dev.outbox.it.support;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The test's real KRaft broker, through scripts/kafka-broker.sh: Maven starts it before the suite; a test can
 * stop it (SIGTERM, the JVM gone) and start it again on the same data, as an outage would.
 */
public final class KafkaBroker {

    private final String script = Settings.required("it.kafka.script");
    private final String dir = Settings.required("it.kafka.dir");
    private final String bootstrap = Settings.required("it.kafka.bootstrap");

    public String bootstrapServers() {
        return bootstrap;
    }

    public void stop() throws IOException, InterruptedException {
        run("stop", dir);
    }

    public void start() throws IOException, InterruptedException {
        run("start", dir, bootstrap.substring(bootstrap.lastIndexOf(':') + 1));
    }

    private void run(String... arguments) throws IOException, InterruptedException {
        List<String> command = new java.util.ArrayList<>(List.of(script));
        command.addAll(List.of(arguments));
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        if (!process.waitFor(90, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            throw new IllegalStateException("kafka-broker.sh " + arguments[0] + " did not finish within 90 s");
        }
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (process.exitValue() != 0) {
            throw new IllegalStateException("kafka-broker.sh " + String.join(" ", arguments) + " failed: " + output);
        }
        System.out.print(output);
    }
}
