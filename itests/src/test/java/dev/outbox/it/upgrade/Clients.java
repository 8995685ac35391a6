package dev.outbox.it.upgrade;

import dev.outbox.it.support.ExampleService;
import dev.outbox.it.support.ExampleService.Reply;

import java.math.BigDecimal;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

import static dev.outbox.it.support.Eventually.await;

/**
 * A client placing and paying orders at a steady pace on the servers it is told to use: each order placed on one
 * and paid on the next, so one aggregate's versions come from different servers. Before a server is taken away
 * the test narrows the targets, and the switch returns only once no request is on its way to a removed server.
 * Each phase of the test gives the orders a customer id of its own, so it can tell who published which phase.
 */
final class Clients implements AutoCloseable {

    /**
     * A pause between orders: some five a second, which two servers on two cores publish as fast as they come (without
     * it the clients placed 2,200 orders in the 90 s of restarts and the drain after them took three minutes).
     */
    private static final long PACE_MS = 200;

    private final List<String> orders = Collections.synchronizedList(new ArrayList<>());
    private final List<String> refusals = Collections.synchronizedList(new ArrayList<>());
    private final AtomicLong rounds = new AtomicLong();
    /** The longest a round (place, then pay) took since {@link #measureRounds}, in milliseconds. */
    private final AtomicLong longestRoundMs = new AtomicLong();
    /** When the round on its way started ({@link System#nanoTime}), 0 between rounds. */
    private volatile long roundStarted;
    private final Thread thread;
    private volatile List<ExampleService> targets;
    private volatile String customer;
    private volatile boolean closed;
    private volatile boolean paused;

    Clients(String customer, ExampleService... targets) {
        this.customer = customer;
        this.targets = List.of(targets);
        this.thread = new Thread(this::run, "upgrade-clients");
        thread.start();
    }

    private void run() {
        long i = 0;
        while (!closed) {
            if (paused) {
                rounds.incrementAndGet(); // an idle round: pause() sees that no request is on its way
                try {
                    Thread.sleep(PACE_MS);
                } catch (InterruptedException e) {
                    return;
                }
                continue;
            }
            List<ExampleService> now = targets;
            String placedFor = customer;
            ExampleService placeOn = now.get((int) (i % now.size()));
            ExampleService payOn = now.get((int) ((i + 1) % now.size()));
            i++;
            long started = System.nanoTime();
            roundStarted = started;
            try {
                Reply placed = placeOn.placeOrder(placedFor, BigDecimal.ONE);
                if (placed.status() != 201) {
                    refusals.add("place: " + placed);
                } else {
                    // Tracked before the payment: whatever happens to it, this order committed.
                    orders.add(placed.orderId());
                    Reply paid = payOn.pay(placed.orderId(), 1);
                    if (paid.status() != 200) {
                        refusals.add("pay " + placed.orderId() + ": " + paid);
                    }
                }
            } catch (RuntimeException e) {
                refusals.add(e.toString());
            }
            roundStarted = 0;
            longestRoundMs.accumulateAndGet((System.nanoTime() - started) / 1_000_000, Math::max);
            rounds.incrementAndGet();
            try {
                Thread.sleep(PACE_MS);
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    /**
     * Places every later order for {@code customer} on these servers; returns once no request is on its way
     * elsewhere.
     */
    void sendTo(String customer, ExampleService... servers) {
        this.customer = customer;
        targets = List.of(servers);
        long now = rounds.get();
        // The round in progress may still use the old targets; the one after it cannot. A round is two requests
        // of at most 30 s each.
        await(Duration.ofSeconds(130), "the clients' requests to the old targets answered", rounds::get,
                n -> n >= now + 2);
    }

    /** Stops placing orders once the round in progress is answered; {@link #resume} goes on. */
    void pause() {
        paused = true;
        long now = rounds.get();
        await(Duration.ofSeconds(70), "the clients' round in progress answered", rounds::get, n -> n >= now + 1);
    }

    void resume() {
        paused = false;
    }

    /** Forgets the rounds measured so far: {@link #longestRound} reports those after this call. */
    void measureRounds() {
        longestRoundMs.set(0);
    }

    /** The longest round since {@link #measureRounds}, the one on its way included. */
    Duration longestRound() {
        long started = roundStarted;
        long onItsWay = started == 0 ? 0 : (System.nanoTime() - started) / 1_000_000;
        return Duration.ofMillis(Math.max(longestRoundMs.get(), onItsWay));
    }

    void awaitOrders(int count) {
        await(Duration.ofSeconds(120), count + " orders placed and paid", orders::size, n -> n >= count);
    }

    List<String> orders() {
        synchronized (orders) {
            return List.copyOf(orders);
        }
    }

    List<String> refusals() {
        synchronized (refusals) {
            return List.copyOf(refusals);
        }
    }

    @Override
    public void close() throws InterruptedException {
        closed = true;
        thread.join(Duration.ofSeconds(60).toMillis());
    }
}
