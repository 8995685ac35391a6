package dev.outbox.it.architecture.cycle.a;

import dev.outbox.it.architecture.cycle.b.Right;

/** Half of a package cycle that ArchitectureTest's cycle rule must catch. */
public final class Left {
    public Right right() {
        return new Right();
    }
}
