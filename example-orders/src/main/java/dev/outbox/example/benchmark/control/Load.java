package dev.outbox.example.benchmark.control;

import jakarta.enterprise.concurrent.ManagedExecutorService;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/**
 * Runs a command from several callers at once on the server's managed threads, either as fast as it goes or
 * paced to a steady rate, and counts the commands that committed.
 */
public final class Load {

    private final ManagedExecutorService executor;

    public Load(ManagedExecutorService executor) {
        this.executor = executor;
    }

    /**
     * Each caller runs {@code command} on its own order, back to back, until the time is up.
     *
     * @return commands that completed
     */
    public long flatOut(List<String> orderPerCaller, long millis, Consumer<String> command) {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
        AtomicLong done = new AtomicLong();
        awaitAll(orderPerCaller.stream().map(order -> executor.submit(() -> {
            while (System.nanoTime() < deadline) {
                command.accept(order);
                done.incrementAndGet();
            }
        })).toList());
        return done.get();
    }

    /**
     * {@code callers} callers share {@code perSecond} commands a second, each on its own slice of {@code orders}
     * in turn (no two callers change one order); a caller that falls behind catches up without sleeping (the
     * figures then show it).
     *
     * @return commands that completed
     */
    public long steady(List<String> orders, int callers, int perSecond, long millis, Consumer<String> command) {
        long start = System.nanoTime();
        long intervalNanos = TimeUnit.SECONDS.toNanos(1) * callers / perSecond;
        long total = perSecond * millis / 1000;
        AtomicLong done = new AtomicLong();
        List<Future<?>> running = new ArrayList<>();
        if (orders.size() < callers) {
            throw new IllegalArgumentException("steady load needs at least one order per caller (" + callers + ")");
        }
        for (int c = 0; c < callers; c++) {
            int caller = c;
            List<String> slice = new ArrayList<>();
            for (int i = caller; i < orders.size(); i += callers) {
                slice.add(orders.get(i));
            }
            running.add(executor.submit(() -> {
                long k = 0;
                for (long n = caller; n < total; n += callers, k++) {
                    long due = start + caller * intervalNanos / callers + k * intervalNanos;
                    long wait = due - System.nanoTime();
                    if (wait > 0) {
                        TimeUnit.NANOSECONDS.sleep(wait);
                    }
                    command.accept(slice.get((int) (k % slice.size())));
                    done.incrementAndGet();
                }
                return null;
            }));
        }
        awaitAll(running);
        return done.get();
    }

    private static void awaitAll(List<? extends Future<?>> running) {
        for (Future<?> future : running) {
            try {
                future.get();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("benchmark load interrupted", e);
            } catch (ExecutionException e) {
                throw new IllegalStateException("a benchmark caller failed: " + e.getCause(), e.getCause());
            }
        }
    }
}
