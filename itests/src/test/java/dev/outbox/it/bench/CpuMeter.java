package dev.outbox.it.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.ToLongFunction;
import java.util.stream.Stream;

/**
 * Where this machine's CPU went during a measured window, read from Linux's /proc: how busy all cores were and
 * how much CPU time each part of the test rig took (the Liberty server, the Kafka broker, the database, this
 * benchmark's JVM, everything else). A drain that keeps every core busy is bound by the CPU its parts spend per
 * event, not by how the publisher schedules its steps (issue 20: "what bounds it on 2 cores").
 */
final class CpuMeter {

    /**
     * The parts a process is counted under, in the order they are reported; "interrupts" is the kernel's irq and
     * softirq time (loopback traffic among them), which Linux charges to no process.
     */
    static final List<String> PARTS = List.of("server", "broker", "database", "benchmark", "other", "interrupts");

    private static final long SELF = ProcessHandle.current().pid();
    private static final double TICKS_PER_SECOND = ticksPerSecond();

    /** One reading: when, the machine's busy and total ticks, and each live process's part and CPU ticks. */
    record Sample(long wallMillis, long nanos, long busyTicks, long totalTicks, long interruptTicks,
                  Map<Long, Process> processes) {
    }

    /** A process as one reading saw it; {@code started} tells a reused pid from the process it replaced. */
    record Process(String part, long ticks, long parent, long started, long writtenBytes) {
    }

    /** Each process's part, read from its command line once (pid and start time name one process). */
    private static final Map<String, String> PARTS_SEEN = new java.util.concurrent.ConcurrentHashMap<>();

    /**
     * What a window cost: its length, the share of all cores that was busy, and CPU seconds per part. A process
     * that ended inside the window counts under its parent's part once the parent reaped it.
     */
    record Usage(double seconds, double busyShare, Map<String, Double> cpuSecondsByPart, boolean covered,
                 Map<String, Long> writtenBytesByPart) {

        /**
         * Whether two samples fell inside the window and /proc was read: a drain of a second may end before the
         * first sample, and the samples around it would count a server's start-up.
         */
        boolean measured() {
            return covered && seconds > 0.2;
        }

        /**
         * CPU milliseconds per event, by part, e.g. "server 0.21, broker 0.09, ...", for events that went at
         * {@code eventsPerSecond} through the sampled part of the window.
         */
        String perEvent(double eventsPerSecond) {
            double events = Math.max(1, eventsPerSecond * seconds);
            StringBuilder text = new StringBuilder();
            for (Map.Entry<String, Double> part : cpuSecondsByPart.entrySet()) {
                text.append(text.length() == 0 ? "" : ", ").append(part.getKey()).append(' ')
                        .append(String.format("%.3f", part.getValue() * 1000 / events));
            }
            return text.toString();
        }

        /** The rate the window's CPU per event would allow with every core busy: the CPU bound. */
        double boundFor(double eventsPerSecond) {
            return eventsPerSecond / Math.max(busyShare, 0.001);
        }
    }

    private CpuMeter() {
    }

    static Sample sample() {
        long wall = System.currentTimeMillis();
        long nanos = System.nanoTime();
        long busy = 0;
        long total = 0;
        long interrupts = 0;
        try {
            String[] cpu = Files.readAllLines(Path.of("/proc/stat")).get(0).trim().split("\\s+");
            // cpu user nice system idle iowait irq softirq steal ...: idle and iowait are the not-busy ticks, and
            // steal is time the host gave another guest, busy for no one here (guest time is inside user already)
            for (int i = 1; i <= 8 && i < cpu.length; i++) {
                long ticks = Long.parseLong(cpu[i]);
                total += ticks;
                busy += (i == 4 || i == 5 || i == 8) ? 0 : ticks;
                interrupts += (i == 6 || i == 7) ? ticks : 0;
            }
        } catch (IOException e) {
            return new Sample(wall, nanos, 0, 0, 0, Map.of());
        }
        Map<Long, Process> processes = new HashMap<>();
        try (Stream<Path> pids = Files.list(Path.of("/proc"))) {
            pids.filter(p -> p.getFileName().toString().chars().allMatch(Character::isDigit)).forEach(p -> {
                long pid = Long.parseLong(p.getFileName().toString());
                try {
                    String stat = Files.readString(p.resolve("stat"));
                    // utime, stime, cutime, cstime are the 14th to 17th fields (the command name before them may
                    // hold spaces); the children's times count the database's backends and vacuum workers that
                    // ended and were reaped by their postmaster
                    String[] after = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
                    long ticks = Long.parseLong(after[11]) + Long.parseLong(after[12]) + Long.parseLong(after[13])
                            + Long.parseLong(after[14]);
                    long parent = Long.parseLong(after[1]); // the 4th field
                    long started = Long.parseLong(after[19]); // the 22nd field, in ticks after boot
                    String part = PARTS_SEEN.get(pid + "@" + started);
                    if (part == null) {
                        part = partOf(pid, p);
                        PARTS_SEEN.put(pid + "@" + started, part);
                    }
                    processes.put(pid, new Process(part, ticks, parent, started, writtenBytes(p)));
                } catch (IOException | RuntimeException gone) {
                    // the process ended between the listing and the read
                }
            });
        } catch (IOException e) {
            // the machine's figure stands alone
        }
        return new Sample(wall, nanos, busy, total, interrupts, processes);
    }

    /** What the process had the kernel write to storage (write_bytes in /proc/<pid>/io); 0 where not readable. */
    private static long writtenBytes(Path proc) {
        try {
            for (String line : Files.readAllLines(proc.resolve("io"))) {
                if (line.startsWith("write_bytes:")) {
                    return Long.parseLong(line.substring("write_bytes:".length()).trim());
                }
            }
        } catch (IOException | RuntimeException notReadable) {
            // another user's process, or it ended
        }
        return 0;
    }

    private static String partOf(long pid, Path proc) throws IOException {
        if (pid == SELF) {
            return "benchmark";
        }
        String command = new String(Files.readAllBytes(proc.resolve("cmdline"))).replace('\0', ' ');
        if (command.contains("ws-server.jar")) {
            return "server";
        }
        if (command.contains("kafka.Kafka ")) {
            return "broker";
        }
        if (command.startsWith("postgres") || command.contains("/bin/postgres") || command.contains("mariadbd")) {
            return "database";
        }
        return "other";
    }

    /** The usage between two samples of the same machine. */
    static Usage between(Sample from, Sample to) {
        return between(from, to, true);
    }

    private static Usage between(Sample from, Sample to, boolean covered) {
        double seconds = (to.nanos() - from.nanos()) / 1e9;
        long total = to.totalTicks() - from.totalTicks();
        double busyShare = total <= 0 ? 0 : (double) (to.busyTicks() - from.busyTicks()) / total;
        Map<String, Double> byPart = new LinkedHashMap<>();
        PARTS.forEach(part -> byPart.put(part, 0.0));
        Map<String, Long> written = new LinkedHashMap<>();
        to.processes().forEach((pid, now) -> {
            Process before = same(from.processes().get(pid), now);
            long ticks = now.ticks() - (before == null ? 0 : before.ticks());
            byPart.merge(now.part(), ticks / TICKS_PER_SECOND, Double::sum);
            written.merge(now.part(), now.writtenBytes() - (before == null ? 0 : before.writtenBytes()), Long::sum);
        });
        // A process that ended in the window moved all its time into its parent's children's times (the database's
        // backends and vacuum workers into their postmaster's), so what it had before the window would count twice
        // there. An orphan's reaper may be no process we see; then its time is lost rather than counted twice.
        from.processes().forEach((pid, before) -> {
            if (same(before, to.processes().get(pid)) == null) {
                Process parent = to.processes().get(before.parent());
                if (parent != null) {
                    byPart.merge(parent.part(), -before.ticks() / TICKS_PER_SECOND, Double::sum);
                }
            }
        });
        byPart.put("interrupts", (to.interruptTicks() - from.interruptTicks()) / TICKS_PER_SECOND);
        return new Usage(seconds, busyShare, byPart, covered && total > 0, written);
    }

    /** {@code before}, if it is the same process as {@code now} (a pid can be reused); otherwise null. */
    private static Process same(Process before, Process now) {
        return before != null && now != null && before.started() == now.started() ? before : null;
    }

    /**
     * The usage over the samples that fall inside [startMillis, endMillis] (wall clock), or over the two nearest
     * the window when fewer than two fall inside it.
     */
    static Usage within(List<Sample> samples, long startMillis, long endMillis) {
        return within(samples, startMillis, endMillis, Sample::wallMillis);
    }

    /** As {@link #within(List, long, long)}, for a window measured with {@link System#nanoTime()}. */
    static Usage withinNanos(List<Sample> samples, long startNanos, long endNanos) {
        return within(samples, startNanos, endNanos, Sample::nanos);
    }

    private static Usage within(List<Sample> samples, long start, long end, ToLongFunction<Sample> clock) {
        Sample first = null;
        Sample last = null;
        for (Sample s : samples) {
            if (clock.applyAsLong(s) >= start && clock.applyAsLong(s) <= end) {
                first = first == null ? s : first;
                last = s;
            }
        }
        boolean covered = first != null && first != last;
        if (!covered) {
            first = samples.get(0);
            last = samples.get(samples.size() - 1);
            for (Sample s : samples) {
                if (clock.applyAsLong(s) <= start) {
                    first = s;
                }
            }
            for (int i = samples.size() - 1; i >= 0; i--) {
                if (clock.applyAsLong(samples.get(i)) >= end) {
                    last = samples.get(i);
                }
            }
        }
        return between(first, last, covered);
    }

    private static double ticksPerSecond() {
        try {
            java.lang.Process getconf = new ProcessBuilder("getconf", "CLK_TCK").redirectErrorStream(true).start();
            String out = new String(getconf.getInputStream().readAllBytes()).trim();
            getconf.waitFor();
            return Double.parseDouble(out);
        } catch (IOException | RuntimeException e) {
            return 100; // Linux's USER_HZ nearly everywhere
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return 100;
        }
    }
}
