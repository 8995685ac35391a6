package dev.outbox.internal.publish;

import dev.outbox.internal.config.Settings;

import java.util.Locale;

/**
 * The publisher's crash windows (R7.2), for the fault-injection suite: with {@code outbox.failpoint} set to one
 * of them, the JVM halts there (no shutdown hooks, no clean close), the first time a non-empty batch reaches it.
 * Off by default; when off, each check is one comparison with null.
 */
public enum Failpoint {
    /** The claim statement ran; its transaction has not committed. */
    BEFORE_CLAIM_COMMIT,
    /** The claim committed; nothing was sent. */
    AFTER_CLAIM_BEFORE_SEND,
    /** The broker accepted the batch; no confirm was written. */
    AFTER_SEND_BEFORE_CONFIRM,
    /** The confirm statements ran; their transaction has not committed. */
    BEFORE_CONFIRM_COMMIT,
    /** The confirm committed. */
    AFTER_CONFIRM;

    private static volatile Failpoint armed;

    /** Arms one failpoint from the setting's value ({@code none} or a name such as {@code after-send-before-confirm}). */
    static void arm(String setting) {
        if (setting == null || setting.isBlank() || setting.equalsIgnoreCase("none")) {
            armed = null;
            return;
        }
        try {
            armed = valueOf(setting.trim().toUpperCase(Locale.ROOT).replace('-', '_'));
        } catch (IllegalArgumentException e) {
            throw new IllegalStateException("setting " + Settings.FAILPOINT + " names no failpoint: '" + setting
                    + "'; use none or one of before-claim-commit, after-claim-before-send, "
                    + "after-send-before-confirm, before-confirm-commit, after-confirm");
        }
    }

    static Failpoint armed() {
        return armed;
    }

    /** Halts the JVM here when this failpoint is armed. */
    void reach() {
        if (armed == this) {
            System.err.println("outbox failpoint " + this + " reached: halting the JVM");
            System.err.flush();
            Runtime.getRuntime().halt(86);
        }
    }
}
