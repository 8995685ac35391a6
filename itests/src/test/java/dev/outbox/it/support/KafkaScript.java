package dev.outbox.it.support;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** scripts/kafka-broker.sh, run to its end: the one way the tests start, stop and wipe their Kafka brokers. */
final class KafkaScript {

    private KafkaScript() {
    }

    /** Runs the script with {@code arguments}, prints what it said, and fails if it failed or took over {@code timeout}. */
    static void run(Duration timeout, String... arguments) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of(Settings.required("it.kafka.script")));
        command.addAll(List.of(arguments));
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        if (!process.waitFor(timeout.toSeconds(), TimeUnit.SECONDS)) {
            process.destroyForcibly();
            throw new IllegalStateException("kafka-broker.sh " + arguments[0] + " did not finish within "
                    + timeout.toSeconds() + " s");
        }
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (process.exitValue() != 0) {
            throw new IllegalStateException("kafka-broker.sh " + String.join(" ", arguments) + " failed: " + output);
        }
        System.out.print(output);
    }
}
