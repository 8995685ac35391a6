package dev.outbox.schema;

/** H2 2.x, the embedded default. */
public final class H2Dialect implements Dialect {

    @Override
    public String name() {
        return "h2";
    }
}
