package dev.outbox.it.bench;

/**
 * What the peer (gruelbox transaction-outbox) records and later invokes per event: its outbox stores method
 * calls on an interface, and an invocation that returns counts as done.
 */
public interface PeerMessages {

    void send(String topic, String key, String payload);
}
