package dev.outbox.it.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;

/** The benchmark's one table: scenario, figure, target, peer figure, ratio; printed and written as Markdown. */
final class BenchmarkTable {

    record Row(String scenario, String figure, String target, String peer, String ratio) {
    }

    private final List<Row> rows = new ArrayList<>();
    private final List<String> notes = new ArrayList<>();

    void add(String scenario, String figure, String target, String peer, String ratio) {
        rows.add(new Row(scenario, figure, target, peer, ratio));
        System.out.printf("benchmark | %s | %s | %s | %s | %s%n", scenario, figure, target, peer, ratio);
    }

    void note(String note) {
        notes.add(note);
        System.out.println("benchmark note: " + note);
    }

    String markdown(String mode) {
        StringBuilder text = new StringBuilder("# Outbox benchmark (" + mode + ")\n\n")
                .append("Run ").append(OffsetDateTime.now(ZoneOffset.UTC).truncatedTo(ChronoUnit.SECONDS))
                .append(" on ").append(Runtime.getRuntime().availableProcessors()).append(" cores, Java ")
                .append(System.getProperty("java.version")).append(", ").append(System.getProperty("os.name"))
                .append(". PostgreSQL test cluster (fsync off), Open Liberty, single-node KRaft Kafka, all on loopback.\n\n")
                .append("| scenario | figure | target | peer | ratio |\n|---|---|---|---|---|\n");
        for (Row row : rows) {
            text.append("| ").append(row.scenario()).append(" | ").append(row.figure()).append(" | ")
                    .append(row.target()).append(" | ").append(row.peer()).append(" | ").append(row.ratio()).append(" |\n");
        }
        if (!notes.isEmpty()) {
            text.append('\n');
            notes.forEach(note -> text.append("- ").append(note).append('\n'));
        }
        return text.toString();
    }

    void write(Path file, String mode) throws IOException {
        Files.createDirectories(file.getParent());
        Files.writeString(file, markdown(mode));
        System.out.println("benchmark table written to " + file);
    }
}
