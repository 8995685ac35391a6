package dev.outbox.transport;

import dev.outbox.event.Ordering;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * Sends a claimed batch so that a strict aggregate's run of versions reaches the broker in order and stops at
 * its first failure (issue 16 item 10, R4.6): the batch goes in waves, the first holding every independent event
 * and the first strict version of each aggregate, the k-th wave the k-th strict version of each aggregate whose
 * version before was delivered. A version after one that was not delivered (refused, or an unknown outcome) is
 * not sent: it answers {@link #EARLIER_VERSION_NOT_DELIVERED}, a transient failure retried after the earlier one.
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
        int[] before = new int[batch.size()]; // the batch position of the strict version before, or -1
        Map<String, Integer> lastStrict = new HashMap<>();
        int waves = 1;
        for (int i = 0; i < batch.size(); i++) {
            OutboundEvent event = batch.get(i);
            before[i] = -1;
            if (event.ordering() == Ordering.STRICT) {
                String aggregate = event.event().aggregateType() + "/" + event.event().aggregateId();
                Integer previous = lastStrict.put(aggregate, i);
                if (previous != null) {
                    before[i] = previous;
                    wave[i] = wave[previous] + 1;
                    waves = Math.max(waves, wave[i] + 1);
                }
            }
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
                if (before[i] >= 0 && !(results[before[i]] instanceof SendResult.Delivered)) {
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
