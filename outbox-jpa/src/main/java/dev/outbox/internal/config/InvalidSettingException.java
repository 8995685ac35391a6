package dev.outbox.internal.config;

/** A configuration value is unusable; thrown at start-up so the application does not start half-configured. */
public class InvalidSettingException extends RuntimeException {

    private final String name;

    public InvalidSettingException(String name, String rule, String value) {
        super("setting " + name + " (a server.xml variable on Liberty, a MicroProfile Config property on WildFly) " + rule
                + ", was '" + value + "'");
        this.name = name;
    }

    /** The variable's name, such as {@code outbox.payload.max-bytes}. */
    public String name() {
        return name;
    }
}
