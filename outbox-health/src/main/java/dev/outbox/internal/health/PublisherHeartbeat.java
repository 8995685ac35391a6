package dev.outbox.internal.health;

import jakarta.enterprise.context.ApplicationScoped;

import java.time.Duration;
import java.time.Instant;

/**
 * What the liveness check knows of this instance's publisher: whether it publishes, its timer interval and
 * when its last run ended. The publisher (outbox-ejb) reports here because the checks live in a library jar of
 * the EAR, which cannot see the EJB module's classes.
 */
@ApplicationScoped
public class PublisherHeartbeat {

    private volatile boolean active;
    private volatile Duration interval = Duration.ofSeconds(1);
    private volatile Instant lastRunEnded = Instant.now();

    /** The publisher's timer runs from now on, every {@code interval}; start-up counts as a run. */
    public void started(Duration interval) {
        this.interval = interval;
        this.lastRunEnded = Instant.now();
        this.active = true;
    }

    public void stopped() {
        active = false;
    }

    public void runEnded() {
        lastRunEnded = Instant.now();
    }

    public boolean active() {
        return active;
    }

    public Duration interval() {
        return interval;
    }

    public Instant lastRunEnded() {
        return lastRunEnded;
    }
}
