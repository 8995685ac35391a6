package dev.outbox.it.support;

import java.io.IOException;
import java.time.Duration;

/**
 * The test's real KRaft broker, through scripts/kafka-broker.sh: Maven starts it before the suite; a test can
 * stop it (SIGTERM, the JVM gone) and start it again on the same data, as an outage would.
 */
public final class KafkaBroker {

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

    private static void run(String... arguments) throws IOException, InterruptedException {
        KafkaScript.run(Duration.ofSeconds(90), arguments);
    }
}
