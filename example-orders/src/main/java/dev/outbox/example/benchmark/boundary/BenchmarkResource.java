package dev.outbox.example.benchmark.boundary;

import dev.outbox.example.benchmark.control.Load;
import dev.outbox.example.benchmark.control.TracedCommands;
import dev.outbox.example.benchmark.control.UnrecordedNote;
import dev.outbox.example.orders.boundary.Orders;
import dev.outbox.example.orders.control.FaultDrill;
import jakarta.annotation.Resource;
import jakarta.enterprise.concurrent.ManagedExecutorService;
import jakarta.inject.Inject;
import jakarta.json.Json;
import jakarta.json.JsonArrayBuilder;
import jakarta.json.JsonObject;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import jakarta.ws.rs.BadRequestException;
import jakarta.ws.rs.ForbiddenException;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import org.eclipse.microprofile.config.inject.ConfigProperty;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * In-server load for the benchmark (B1, B2), so HTTP does not hide what a transaction costs. Off unless the
 * server.xml variable {@code example.benchmark} is true; production configs leave it off.
 *
 * <ul>
 *     <li>{@code POST /api/benchmark/write-overhead} (B1): {@code callers} callers note their own order as fast
 *     as they can, with the outbox ({@code Orders.note}: conditional update + one event) and without it (the same
 *     update alone), in alternating rounds so drift on a shared machine hits both alike; {@code traced=true} runs
 *     every command of both in a span of its own (B1 with tracing on);</li>
 *     <li>{@code POST /api/benchmark/orders} then {@code POST /api/benchmark/steady} (B3): notes at {@code rate} a
 *     second, by 8 callers, over the orders of customer {@code customer}, for latency measured from the
 *     database afterwards.</li>
 * </ul>
 */
@Path("benchmark")
@Produces(MediaType.APPLICATION_JSON)
public class BenchmarkResource {

    @Inject
    @ConfigProperty(name = "example.benchmark", defaultValue = "false")
    boolean enabled;

    @Inject
    Orders orders;

    @Inject
    UnrecordedNote unrecorded;

    @PersistenceContext(unitName = "orders")
    EntityManager entityManager;

    @Resource
    ManagedExecutorService executor;

    @POST
    @Path("write-overhead")
    public JsonObject writeOverhead(@QueryParam("callers") int callers, @QueryParam("millis") long millis,
                                    @QueryParam("rounds") int rounds, @QueryParam("traced") boolean traced) {
        requireEnabled();
        if (millis < 1 || rounds < 1) {
            throw new BadRequestException("write-overhead needs millis >= 1 and rounds >= 1, was millis=" + millis
                    + " rounds=" + rounds);
        }
        List<String> mine = place("write-overhead", callers);
        Load load = new Load(executor);
        Consumer<String> withOutbox = order -> orders.note(order, "b1");
        Consumer<String> without = unrecorded::note;
        if (traced) {
            // Both sides in a span, so the ratio is the outbox's cost with a trace context to store (R6.7).
            withOutbox = TracedCommands.traced("b1 note", withOutbox);
            without = TracedCommands.traced("b1 note", without);
        }
        long withCount = 0;
        long withoutCount = 0;
        JsonArrayBuilder perRound = Json.createArrayBuilder();
        // A short warm-up of both, then rounds in ABBA order.
        load.flatOut(mine, Math.min(millis, 2000), withOutbox);
        load.flatOut(mine, Math.min(millis, 2000), without);
        for (int round = 0; round < rounds; round++) {
            boolean withFirst = round % 2 == 1;
            long first = load.flatOut(mine, millis, withFirst ? withOutbox : without);
            long second = load.flatOut(mine, millis, withFirst ? without : withOutbox);
            long w = withFirst ? first : second;
            long wo = withFirst ? second : first;
            withCount += w;
            withoutCount += wo;
            perRound.add(Json.createObjectBuilder().add("with", w * 1000.0 / millis).add("without", wo * 1000.0 / millis));
        }
        double seconds = rounds * millis / 1000.0;
        return Json.createObjectBuilder()
                .add("callers", callers)
                .add("traced", traced)
                .add("withOutboxPerSecond", withCount / seconds)
                .add("withoutPerSecond", withoutCount / seconds)
                .add("ratio", withoutCount == 0 ? 0 : (double) withCount / withoutCount)
                .add("rounds", perRound)
                .build();
    }

    /** Places {@code count} orders of {@code customer} for a later {@link #steady} run (their OrderPlaced go out). */
    @POST
    @Path("orders")
    public JsonObject placeOrders(@QueryParam("customer") String customer, @QueryParam("count") int count) {
        requireEnabled();
        return Json.createObjectBuilder().add("placed", place(customer, count).size()).build();
    }

    @POST
    @Path("steady")
    public JsonObject steady(@QueryParam("customer") String customer, @QueryParam("rate") int rate,
                             @QueryParam("millis") long millis) {
        requireEnabled();
        List<String> mine = entityManager.createQuery("SELECT o.id FROM PurchaseOrder o WHERE o.customerId = :customer"
                + " ORDER BY o.id", String.class).setParameter("customer", customer).getResultList();
        if (mine.isEmpty() || rate < 1 || millis < 1) {
            throw new BadRequestException("steady load needs rate >= 1, millis >= 1 and orders of customer " + customer
                    + " (POST /api/benchmark/orders first)");
        }
        long start = System.nanoTime();
        long done = new Load(executor).steady(mine, 8, rate, millis, order -> orders.note(order, "b3"));
        return Json.createObjectBuilder()
                .add("notes", done)
                .add("seconds", (System.nanoTime() - start) / 1e9)
                .build();
    }

    private List<String> place(String customer, int count) {
        if (count < 1 || customer == null || customer.isBlank()) {
            throw new BadRequestException("a benchmark needs a customer and at least one order");
        }
        List<String> placed = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            placed.add(orders.place(customer, BigDecimal.TEN, null, FaultDrill.Point.NONE).orderId());
        }
        return placed;
    }

    private void requireEnabled() {
        if (!enabled) {
            throw new ForbiddenException("the benchmark endpoints are off (server.xml variable example.benchmark)");
        }
    }
}
