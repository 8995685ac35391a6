package dev.outbox.internal.publish;

import dev.outbox.internal.config.InvalidSettingException;
import dev.outbox.internal.config.Settings;
import dev.outbox.internal.transport.StrictRuns;
import dev.outbox.spi.OutboundEvent;
import dev.outbox.spi.SendDeadline;
import dev.outbox.spi.SendResult;
import dev.outbox.spi.Transport;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Function;

/**
 * Which transports each event type is published to: {@code outbox.publisher.transport} for every type (default
 * {@code jms}), {@code outbox.publisher.transport.<EventType>} for one type. A value names one transport
 * ({@code jms}, {@code kafka}) or several separated by commas, for a migration window in which consumers move
 * from one broker to the other: such an event counts as delivered only when every broker acked it, and a retry
 * re-sends to all of them (the consumers' inboxes absorb the twins).
 */
final class Routes {

    static final String DEFAULT_SETTING = Settings.PUBLISHER_TRANSPORT.name();

    private final List<Transport> byDefault;
    private final Map<String, List<Transport>> byType;

    private Routes(List<Transport> byDefault, Map<String, List<Transport>> byType) {
        this.byDefault = byDefault;
        this.byType = byType;
    }

    /** Reads and checks the settings: an unknown transport name stops start-up, naming the variable. */
    static Routes read(Function<String, Optional<String>> source, Iterable<String> names, List<Transport> deployed) {
        List<Transport> byDefault = parse(DEFAULT_SETTING, Settings.PUBLISHER_TRANSPORT.text(source), deployed);
        Map<String, List<Transport>> byType = new LinkedHashMap<>();
        for (String name : names) {
            if (name.startsWith(DEFAULT_SETTING + ".") && name.length() > DEFAULT_SETTING.length() + 1) {
                String type = name.substring(DEFAULT_SETTING.length() + 1);
                byType.put(type, parse(name, source.apply(name).orElse(""), deployed));
            }
        }
        return new Routes(byDefault, Map.copyOf(byType));
    }

    /**
     * R4.3: a lease must outlast the longest send of every transport in use, or a takeover sends a batch again
     * while it is still on its way. Refuses the start with the settings to change.
     */
    void refuseSendsLongerThan(Duration lease) {
        List<List<Transport>> routes = new ArrayList<>(byType.values());
        routes.add(byDefault);
        for (List<Transport> route : routes) {
            // A route's transports send one after the other: their bounds add up.
            Duration longest = Duration.ZERO;
            List<String> settings = new ArrayList<>();
            for (Transport transport : route) {
                Optional<Transport.SendBound> bound = transport.longestSend();
                if (bound.isPresent()) {
                    longest = longest.plus(bound.get().longest());
                    settings.add(transport.name() + ": " + bound.get().settings());
                }
            }
            if (!settings.isEmpty() && longest.compareTo(lease) >= 0) {
                throw new InvalidSettingException(Settings.PUBLISHER_LEASE.name(), "must be longer than the longest send"
                        + " of the route " + names(route) + " (" + String.join("; ", settings) + " = " + longest.toMillis()
                        + " ms), or another server takes a batch over and sends it again while it is still being sent;"
                        + " lengthen the lease or shorten those settings", Long.toString(lease.toMillis()));
            }
        }
    }

    private static List<Transport> parse(String setting, String value, List<Transport> deployed) {
        List<Transport> chosen = new ArrayList<>();
        for (String wanted : Arrays.stream(value.split(",")).map(String::trim).filter(s -> !s.isEmpty()).toList()) {
            Transport transport = deployed.stream().filter(t -> t.name().equals(wanted)).findFirst()
                    .orElseThrow(() -> new InvalidSettingException(setting, "must name a deployed transport ("
                            + String.join(", ", deployed.stream().map(Transport::name).toList())
                            + ") or several separated by commas", value));
            if (!chosen.contains(transport)) {
                chosen.add(transport);
            }
        }
        if (chosen.isEmpty()) {
            throw new InvalidSettingException(setting, "must name at least one transport", value);
        }
        return List.copyOf(chosen);
    }

    List<Transport> of(String eventType) {
        return byType.getOrDefault(eventType, byDefault);
    }

    /** The transports of one event type's route, as metrics tag it: {@code jms}, {@code kafka}, {@code jms+kafka}. */
    String namesOf(String eventType) {
        return names(of(eventType));
    }

    /** For the start-up log line: the default and every per-type route. */
    String describe() {
        StringBuilder text = new StringBuilder(names(byDefault));
        byType.forEach((type, route) -> text.append(", ").append(type).append(" to ").append(names(route)));
        return text.toString();
    }

    private static String names(List<Transport> route) {
        return String.join("+", route.stream().map(Transport::name).toList());
    }

    /**
     * One event's result over its route, and the transports that accepted it (or may have: an unknown outcome),
     * whatever the route's result: where that is not a delivery, the confirm records them (R6.6).
     */
    record Routed(SendResult result, Set<String> acceptedBy) {
    }

    /**
     * Sends a claimed batch along the routes: each transport gets its events in claim order (so per-aggregate
     * order holds on every broker), and answers one result per event, in the batch's order. Every transport
     * gets the same {@code deadline}: the lease covers the whole route.
     */
    List<Routed> send(List<OutboundEvent> batch, SendDeadline deadline) {
        Map<OutboundEvent, Set<String>> accepted = new IdentityHashMap<>();
        // R4.6: a strict aggregate's run goes in waves and stops at its first failure, on every route.
        List<SendResult> results = StrictRuns.send(batch, wave -> sendWave(wave, deadline, accepted));
        List<Routed> routed = new ArrayList<>(results.size());
        for (int i = 0; i < results.size(); i++) {
            routed.add(new Routed(results.get(i), accepted.getOrDefault(batch.get(i), Set.of())));
        }
        return routed;
    }

    private List<SendResult> sendWave(List<OutboundEvent> batch, SendDeadline deadline,
                                      Map<OutboundEvent, Set<String>> accepted) {
        Map<Transport, List<Integer>> positions = new LinkedHashMap<>();
        for (int i = 0; i < batch.size(); i++) {
            for (Transport transport : of(batch.get(i).event().eventType())) {
                positions.computeIfAbsent(transport, t -> new ArrayList<>()).add(i);
            }
        }
        // R4.3: the wave's transports send one after the other; start it only if their longest sends end before
        // the lease does (a later wave of a run may start late in the lease).
        Duration longest = positions.keySet().stream().map(Transport::longestSend).flatMap(Optional::stream)
                .map(Transport.SendBound::longest).reduce(Duration.ZERO, Duration::plus);
        if (!deadline.leaves(longest)) {
            return batch.stream().map(e -> deadline.missed()).toList();
        }
        List<List<SendResult>> perEvent = new ArrayList<>(batch.size());
        for (int i = 0; i < batch.size(); i++) {
            perEvent.add(new ArrayList<>(2));
        }
        positions.forEach((transport, indexes) -> {
            List<SendResult> results = transport.send(indexes.stream().map(batch::get).toList(), deadline);
            for (int k = 0; k < indexes.size(); k++) {
                SendResult result = k < results.size() ? results.get(k)
                        : new SendResult.UnknownOutcome("TransportReturnedTooFewResults");
                perEvent.get(indexes.get(k)).add(result);
                if (result instanceof SendResult.Delivered || result instanceof SendResult.UnknownOutcome) {
                    accepted.computeIfAbsent(batch.get(indexes.get(k)), event -> new TreeSet<>())
                            .add(transport.name());
                }
            }
        });
        return perEvent.stream().map(Routes::combine).toList();
    }

    /**
     * One event's result over all its transports: delivered only when all delivered (broker ids joined, the
     * partition and offset of the one that has them); otherwise the gravest failure decides: permanent parks,
     * then unknown outcome, then transient.
     */
    static SendResult combine(List<SendResult> results) {
        if (results.size() == 1) {
            return results.get(0);
        }
        SendResult gravest = null;
        for (SendResult result : results) {
            if (rank(result) > rank(gravest)) {
                gravest = result;
            }
        }
        if (!(gravest instanceof SendResult.Delivered)) {
            return gravest;
        }
        List<String> ids = new ArrayList<>();
        Integer partition = null;
        Long offset = null;
        for (SendResult result : results) {
            SendResult.Delivered delivered = (SendResult.Delivered) result;
            ids.add(delivered.brokerMessageId());
            if (delivered.partition() != null) {
                partition = delivered.partition();
                offset = delivered.offset();
            }
        }
        String joined = String.join(" ", ids);
        return new SendResult.Delivered(joined.length() <= 200 ? joined : joined.substring(0, 200), partition, offset);
    }

    private static int rank(SendResult result) {
        if (result == null) {
            return -1;
        }
        if (result instanceof SendResult.PermanentFailure) {
            return 3;
        }
        if (result instanceof SendResult.UnknownOutcome) {
            return 2;
        }
        if (result instanceof SendResult.TransientFailure) {
            return 1;
        }
        return 0;
    }
}
