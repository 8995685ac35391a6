package dev.outbox.it.support;

/** The system properties failsafe hands each run (see itests/pom.xml). */
public final class Settings {

    private Settings() {
    }

    public static String required(String name) {
        String value = System.getProperty(name);
        if (value == null) {
            throw new IllegalStateException("system property " + name + " is not set: run the tests through "
                    + "Maven (mvn verify), which sets it per database");
        }
        return value;
    }

    /** A property with a default: a path of this machine a CI may change, say. */
    public static String optional(String name, String fallback) {
        return System.getProperty(name, fallback);
    }
}
