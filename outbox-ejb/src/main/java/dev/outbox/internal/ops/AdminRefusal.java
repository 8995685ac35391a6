package dev.outbox.internal.ops;

import jakarta.ejb.ApplicationException;

/**
 * An administrative action the outbox refuses, with the reason in words an operator can act on. Nothing of the
 * action was written: the transaction rolls back. The admin API maps the {@link Kind} to an HTTP status.
 */
@ApplicationException(rollback = true)
public class AdminRefusal extends RuntimeException {

    public enum Kind {
        /** No such event or request (404). */
        NOT_FOUND,
        /** The row is not in the state the action needs, or the request was decided already (409). */
        CONFLICT,
        /** The input is wrong (400). */
        INVALID,
        /** The person may not do this, such as approving their own replay (403). */
        FORBIDDEN
    }

    private final Kind kind;

    public AdminRefusal(Kind kind, String message) {
        super(message);
        this.kind = kind;
    }

    /** Every change an operator makes says why: the reason goes into the audit trail. */
    public static void requireReason(String reason) {
        if (reason == null || reason.isBlank()) {
            throw new AdminRefusal(Kind.INVALID, "reason must say why (it goes into the audit trail)");
        }
    }

    public Kind kind() {
        return kind;
    }
}
