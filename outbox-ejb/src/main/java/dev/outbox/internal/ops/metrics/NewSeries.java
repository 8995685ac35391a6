package dev.outbox.internal.ops.metrics;

import dev.outbox.internal.persistence.Backlog;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BiConsumer;
import java.util.function.Consumer;

/**
 * Which event types and error classes already have their gauges: each appears once, when a backlog first shows
 * it, whichever metrics API registers them.
 */
final class NewSeries {

    private final Set<String> gauged = ConcurrentHashMap.newKeySet();
    /**
     * The backlog looked at last: every gauge of a scrape asks, and the cache hands out one backlog per refresh,
     * so only a fresh read is worth walking.
     */
    private volatile Backlog seen;

    /** Calls {@code newType} for each event type not seen before, {@code newFailing} for each new error class. */
    void of(Backlog backlog, Consumer<String> newType, BiConsumer<String, String> newFailing,
            Consumer<String> newConsumer) {
        if (backlog == seen) {
            return;
        }
        seen = backlog;
        for (String type : backlog.eventTypes()) {
            if (gauged.add(type)) {
                newType.accept(type);
            }
        }
        backlog.failingByClass().forEach((type, byClass) -> byClass.keySet().forEach(errorClass -> {
            if (gauged.add(type + "\u0000" + errorClass)) {
                newFailing.accept(type, errorClass);
            }
        }));
        for (String consumer : backlog.gaps().consumers()) {
            if (gauged.add("\u0001" + consumer)) {
                newConsumer.accept(consumer);
            }
        }
    }
}
