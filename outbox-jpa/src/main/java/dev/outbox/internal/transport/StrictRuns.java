package dev.outbox.internal.transport;

import dev.outbox.Ordering;
import dev.outbox.spi.OutboundEvent;
import dev.outbox.spi.SendResult;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * Sends a claimed batch so that a strict aggregate's run of versions reaches the broker in order and stops at
 * its first failure (R4.6): the batch goes in waves. A strict version goes in the wave after
 * every earlier event of its aggregate in the batch (of any type), and only once all of those were delivered;
 * independent events follow nothing. A strict version after one that was not delivered (refused, or an unknown
 * outcome) is not sent: it answers {@link #EARLIER_VERSION_NOT_DELIVERED} and is due again once that one is.
 * Without this, v2 could reach the broker while v1 waits for its retry, and a consumer would apply v2 first.
 *
 * <p>A batch without runs is one wave: one call of {@code send}, as before.
 */
public final class StrictRuns {

    /** The error class of a strict version held back because an earlier one of the batch was not delivered. */
    public static final String EARLIER_VERSION_NOT_DELIVERED = "EarlierVersionNotDelivered";

    private StrictRuns() {
    }

    /**
     * @param send sends one wave, in the order given, and answers one result per event (a transport's contract)
     * @return one result per event of {@code batch}, in its order
     */
    public static List<SendResult> send(List<OutboundEvent> batch, Function<List<OutboundEvent>, List<SendResult>> send) {
        int[] wave = new int[batch.size()];
        List<List<Integer>> after = new ArrayList<>(batch.size()); // the batch positions each event must follow
        Map<String, List<Integer>> byAggregate = new HashMap<>();
        int waves = 1;
        for (int i = 0; i < batch.size(); i++) {
            OutboundEvent event = batch.get(i);
            List<Integer> earlier = byAggregate.computeIfAbsent(event.event().aggregateType() + '\u0000'
                    + event.event().aggregateId(), k -> new ArrayList<>());
            // A strict version follows every earlier event of its aggregate in the batch, independent ones too:
            // if one of those fails, a consumer must not see the strict one before it (R4.6).
            List<Integer> follows = event.ordering() == Ordering.STRICT ? List.copyOf(earlier) : List.of();
            after.add(follows);
            for (int position : follows) {
                wave[i] = Math.max(wave[i], wave[position] + 1);
            }
            waves = Math.max(waves, wave[i] + 1);
            earlier.add(i);
        }
        if (waves == 1) {
            return send.apply(batch);
        }
        SendResult[] results = new SendResult[batch.size()];
        for (int k = 0; k < waves; k++) {
            List<Integer> positions = new ArrayList<>();
            for (int i = 0; i < batch.size(); i++) {
                if (wave[i] != k) {
                    continue;
                }
                if (after.get(i).stream().anyMatch(p -> !(results[p] instanceof SendResult.Delivered))) {
                    results[i] = new SendResult.TransientFailure(EARLIER_VERSION_NOT_DELIVERED);
                } else {
                    positions.add(i);
                }
            }
            if (positions.isEmpty()) {
                continue;
            }
            List<SendResult> sent = send.apply(positions.stream().map(batch::get).toList());
            for (int j = 0; j < positions.size(); j++) {
                results[positions.get(j)] = j < sent.size() ? sent.get(j)
                        : new SendResult.UnknownOutcome("TransportReturnedTooFewResults");
            }
        }
        return List.of(results);
    }
}
