package dev.outbox.internal.persistence;

import java.util.UUID;

/** What the broker acknowledged for one claimed event: the confirm writes it if the claim is still ours. */
public record Delivery(UUID eventId, long leaseVersion, String brokerMessageId, Integer partition, Long offset) {
}
