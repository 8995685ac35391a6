package dev.outbox.it.architecture.cycle.b;

import dev.outbox.it.architecture.cycle.a.Left;

/** The other half of the package cycle. */
public final class Right {
    public Left left() {
        return new Left();
    }
}
